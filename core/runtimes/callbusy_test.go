package runtimes

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// One of pi's reading commands (rpc passes get_available_models through)
// is answered while a prompt runs, as pi answers it, even when it came as
// the prompt's launch began: it found no runtime, and by the time it had
// built its spec the prompt's runtime was there and busy. It said "the
// agent is busy with another prompt".
func TestCallIsAnsweredDuringAPrompt(t *testing.T) {
	var first atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "wait here", HoldAbort: true}}}, func(o *Options) {
		env := o.Env
		o.Env = func(k string) string {
			if k == EnvEngine {
				// The first spec built (the Call's) waits until the prompt
				// runs.
				if first.CompareAndSwap(false, true) {
					close(entered)
					<-release
				}
			}
			return env(k)
		}
	})
	called := make(chan error, 1)
	go func() {
		data, err := r.m.Call(context.Background(), r.sid, "get_available_models", nil)
		if err == nil && !strings.Contains(string(data), "fake-model") {
			err = errString("answer " + string(data))
		}
		called <- err
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.m.Prompt(ctx, r.sid, "", "hold")
		done <- err
	}()
	r.await("a delta", func(e events.Event) bool { _, ok := e.(events.TextDelta); return ok })
	close(release)
	if err := <-called; err != nil {
		t.Errorf("get_available_models during the prompt: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the prompt: %v", err)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

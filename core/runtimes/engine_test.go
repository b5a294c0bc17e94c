package runtimes

import (
	"context"
	"errors"
	"testing"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// A follow-up sent through the manager while a turn streams reaches the
// model in the same prompt, on the session's engine; with no turn running
// it is refused, so the caller sends it as a prompt.
func TestFollowUpThroughTheManager(t *testing.T) {
	hold := make(chan struct{})
	r := newRig(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Text: "working on it", Hold: hold}
		}
		return fakemodel.Reply{Text: "and: " + req.LastUser}
	}, nil)
	if err := r.m.FollowUp(r.sid, "too early"); !errors.Is(err, engine.ErrIdle) {
		t.Errorf("a follow-up with no runtime: %v", err)
	}
	sub := r.h.Events.Subscribe(t.Context(), events.Agent)
	done := make(chan engine.Result, 1)
	go func() { res, _ := r.m.Prompt(context.Background(), r.sid, "", "start"); done <- res }()
	for streaming := false; !streaming; {
		batch, _ := sub.Next()
		for _, e := range batch {
			if _, ok := e.(events.TextDelta); ok {
				streaming = true
			}
		}
	}
	if err := r.m.FollowUp(r.sid, "the tests too"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if res := <-done; res.Text != "and: the tests too" {
		t.Errorf("result = %+v", res)
	}
	if err := r.m.Steer(r.sid, "after the end"); !errors.Is(err, engine.ErrIdle) {
		t.Errorf("steering an idle runtime: %v", err)
	}
}

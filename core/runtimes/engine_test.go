package runtimes

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/agent"
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

// The manager starts an engine only through its descriptor's constructor
// (engine.Descriptor.Start), with the session, its root and its model,
// and the engine it returns runs the prompt; an engine registered
// without one is refused when the manager is made, not at the first
// prompt.
func TestEnginesStartThroughTheirDescriptor(t *testing.T) {
	var launches []engine.Launch
	own := agent.Describe()
	own.Name, own.Title = "own", "test"
	own.Start = func(ctx context.Context, l engine.Launch) (engine.Engine, error) {
		launches = append(launches, l)
		return agent.Start(ctx, l)
	}
	r := newRig(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "started"} },
		func(o *Options) { o.Engines = engine.NewRegistry(own) })
	if res := r.prompt("hello"); res.Text != "started" {
		t.Errorf("result = %+v", res)
	}
	if len(launches) != 1 {
		t.Fatalf("Start ran %d times, want once", len(launches))
	}
	l := launches[0]
	if l.Session.ID() != r.sid || l.Root != r.root || l.Model.ID != "m1" || l.Client == nil || l.Events == nil {
		t.Errorf("launched with session %s, root %s, model %+v, client %v", l.Session.ID(), l.Root, l.Model, l.Client)
	}
	unstartable := agent.Describe()
	unstartable.Start = nil
	_, err := New(Options{Host: r.h, Engines: engine.NewRegistry(unstartable)})
	if err == nil || !strings.Contains(err.Error(), "no constructor") {
		t.Errorf("a manager with an engine it cannot start: %v", err)
	}
}

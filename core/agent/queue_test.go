package agent

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// waitDelta waits for the first streamed text of the turn.
func waitDelta(h *harness) {
	for e := range h.evs {
		if _, ok := e.(events.TextDelta); ok {
			return
		}
	}
}

// queueEvents takes the QueueChanged events published so far.
func queueEvents(h *harness) []events.QueueChanged {
	var out []events.QueueChanged
	for len(h.evs) > 0 {
		if q, ok := (<-h.evs).(events.QueueChanged); ok {
			out = append(out, q)
		}
	}
	return out
}

// A steering message sent while the model answers reaches its next call,
// after the tool result it waits for; a follow-up arrives when the model
// would have stopped; both are in the session as user messages, and one
// agent_end ends the whole.
func TestSteerAndFollowUpReachTheRunningTurn(t *testing.T) {
	hold := make(chan struct{})
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		switch n {
		case 0:
			return fakemodel.Reply{Text: "looking", Calls: []fakemodel.Call{{ID: "l1", Name: "ls", Args: map[string]any{}}}, Hold: hold}
		case 1:
			return fakemodel.Reply{Text: "saw: " + req.LastUser}
		}
		return fakemodel.Reply{Text: "then: " + req.LastUser}
	}
	h := newHarness(t, script, nil)
	done := make(chan Result, 1)
	go func() {
		res, err := h.ag.Prompt(context.Background(), "list it")
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitDelta(h)
	if err := h.ag.Steer("only Go files"); err != nil {
		t.Fatal(err)
	}
	if err := h.ag.FollowUp("now count them"); err != nil {
		t.Fatal(err)
	}
	close(hold)
	res := <-done
	if res.Text != "then: now count them" || len(res.Unsent) != 0 {
		t.Errorf("result = %+v", res)
	}
	reqs := h.fake.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].Raw, `"tool_call_id":"l1"},{"role":"user","content":"only Go files"}]`) {
		t.Fatalf("the second call does not end with the tool result and the steering message (%d calls)", len(reqs))
	}
	if got := types(h.sess); got != "user,assistant,tool_result,user,assistant,user,assistant" {
		t.Errorf("entries = %s", got)
	}
	want := []events.QueueChanged{
		{SessionID: h.sess.ID(), Steering: []string{"only Go files"}},
		{SessionID: h.sess.ID(), Steering: []string{"only Go files"}, FollowUp: []string{"now count them"}},
		{SessionID: h.sess.ID(), FollowUp: []string{"now count them"}},
		{SessionID: h.sess.ID()},
	}
	if got := queueEvents(h); !reflect.DeepEqual(got, want) {
		t.Errorf("queue events:\n got %+v\nwant %+v", got, want)
	}
	if err := h.ag.Steer("late"); !errors.Is(err, engine.ErrIdle) {
		t.Errorf("steering an idle agent: %v", err)
	}
}

// An aborted turn hands back what it had not delivered, and says the
// queue is empty.
func TestAbortedTurnHandsBackItsQueue(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "never ends", Hold: hold}
	}, nil)
	done := make(chan Result, 1)
	go func() { res, _ := h.ag.Prompt(context.Background(), "go"); done <- res }()
	waitDelta(h)
	h.ag.FollowUp("and then this")
	h.ag.Abort()
	res := <-done
	if !res.Aborted || !reflect.DeepEqual(res.Unsent, []string{"and then this"}) {
		t.Errorf("result = %+v", res)
	}
	q := queueEvents(h)
	if len(q) != 2 || len(q[1].FollowUp) != 0 || len(q[1].Steering) != 0 {
		t.Errorf("queue events = %+v", q)
	}
	if got := types(h.sess); got != "user,assistant" {
		t.Errorf("the follow-up was stored: %s", got)
	}
}

// A compaction is no turn: a message sent while it runs is refused (the
// caller sends it as a prompt once it is over), not queued and lost.
func TestNothingQueuesDuringACompaction(t *testing.T) {
	hold := make(chan struct{})
	h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 2 {
			return fakemodel.Reply{Text: "the summary", Hold: hold}
		}
		return fakemodel.Reply{Text: "answer"}
	}, nil)
	for _, p := range []string{"one", "two"} {
		if _, err := h.ag.Prompt(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := h.ag.Compact(context.Background(), ""); done <- err }()
	for e := range h.evs {
		if _, ok := e.(events.CompactionStarted); ok {
			break
		}
	}
	if err := h.ag.FollowUp("meanwhile"); !errors.Is(err, engine.ErrIdle) {
		t.Errorf("a follow-up during a compaction: %v", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

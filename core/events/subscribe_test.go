package events

import (
	"context"
	"testing"
)

// A verbatim subscriber gets every delta as published, while an ordinary
// one gets them merged; both get the same text.
func TestVerbatimMergesNothing(t *testing.T) {
	t.Parallel()
	b := New()
	merged, verbatim := b.Subscribe(t.Context(), Agent), b.Subscribe(t.Context(), Agent, Verbatim)
	for _, w := range []string{"a", "b", "c"} {
		b.Publish(token("s1", w))
	}
	b.Publish(ThinkingDelta{SessionID: "s1", Text: "x"})
	b.Publish(ThinkingDelta{SessionID: "s1", Text: "y"})
	if got := next(t, merged); len(got) != 2 || got[0] != token("s1", "abc") || got[1] != (ThinkingDelta{SessionID: "s1", Text: "xy"}) {
		t.Errorf("merged: %+v", got)
	}
	if got := next(t, verbatim); len(got) != 5 || got[2] != token("s1", "c") {
		t.Errorf("verbatim: %+v", got)
	}
}

// Close ends a subscription but hands out what had queued before it,
// once; nothing published after it arrives.
func TestCloseHandsOutWhatQueued(t *testing.T) {
	t.Parallel()
	b := New()
	s := b.Subscribe(context.Background(), Agent, Verbatim)
	b.Publish(AgentStarted{SessionID: "s1"})
	b.Publish(AgentEnded{SessionID: "s1"})
	s.Close()
	b.Publish(AgentStarted{SessionID: "s2"})
	if got := next(t, s); len(got) != 2 || got[1] != (AgentEnded{SessionID: "s1"}) {
		t.Fatalf("after Close: %+v", got)
	}
	for range 2 {
		if batch, ok := s.Next(); ok {
			t.Errorf("Next went on after Close: %+v", batch)
		}
	}
	b.mu.Lock()
	n := len(b.subs)
	b.mu.Unlock()
	if n != 0 {
		t.Errorf("%d subscriptions left", n)
	}
}

// Questions are made by Ask only: an Asked published from outside reaches
// nobody.
func TestPublishMakesNoQuestions(t *testing.T) {
	t.Parallel()
	b := New()
	s := b.Subscribe(t.Context(), Approvals|Agent)
	s.Show("s1")
	b.Publish(Asked{ID: 7, SessionID: "s1"})
	b.Publish(AgentStarted{SessionID: "s1"})
	if got := next(t, s); len(got) != 1 || got[0] != (AgentStarted{SessionID: "s1"}) {
		t.Errorf("got %+v", got)
	}
}

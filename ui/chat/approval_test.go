package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

func testModel(t *testing.T) *Model {
	t.Helper()
	d, _ := benchDeps(t)
	m := newChat(t, d)
	m.sid = "s1"
	return m
}

// navOps counts the layers the view opened and closed since last asked.
func navOps(m *Model) (pushed, closed int) {
	for _, op := range m.d.UI.Nav.Drain() {
		if op.Push != nil {
			pushed++
		} else {
			closed++
		}
	}
	return
}

// deliver hands the view the next batch from its subscription, as its
// program would.
func deliver(m *Model) {
	if msg := m.br.wait()(); msg != nil {
		m.Update(msg)
	}
}

// asking asks the core about a bash call of session sid until ctx ends;
// the answer (or the error) arrives on the returned channel.
func asking(ctx context.Context, m *Model, sid string) chan error {
	done := make(chan error, 1)
	go func() {
		a, err := m.d.Events.Ask(ctx, sid, "", "", events.Approval{Tool: "bash", Command: "touch X"})
		if err == nil && a.Allow {
			err = errors.New("allowed")
		}
		done <- err
	}()
	return done
}

// TestApprovalBelongsToItsSession: a question of a session no window shows
// is not put to this one; the end of a turn closes its question
// unanswered; leaving a session denies and closes what it asked.
func TestApprovalBelongsToItsSession(t *testing.T) {
	m := testModel(t)
	m.SetSize(100, 30)
	m.br.show("s1")
	if err := <-asking(t.Context(), m, "s2"); !errors.Is(err, events.ErrUnattended) {
		t.Fatalf("a question of a session nobody shows: %v", err)
	}

	turn, end := context.WithCancel(t.Context())
	mine := asking(turn, m, "s1")
	deliver(m)
	if p, _ := navOps(m); p != 1 {
		t.Fatal("the session's own question was not shown")
	}
	end()
	if err := <-mine; !errors.Is(err, context.Canceled) {
		t.Fatalf("the ended turn's question: %v", err)
	}
	deliver(m)
	if _, c := navOps(m); c != 1 || !strings.Contains(m.View(), "the approval question was withdrawn") {
		t.Fatal("the end of the turn left its question open, or said nothing")
	}

	again := asking(t.Context(), m, "s1")
	deliver(m)
	navOps(m)
	m.close() // to the session list
	if _, c := navOps(m); c != 1 {
		t.Fatal("leaving the session did not close its question")
	}
	if err := <-again; err != nil {
		t.Fatalf("leaving the session did not deny its question: %v", err)
	}
}

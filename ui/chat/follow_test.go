package chat

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Following another program's turn on the open session: the view shows
// what that turn stored, read from the session the runtime appends to.
// These tests put the reads and the turn's events in the orders a loaded
// machine can put them in, one by one.

// followed opens, in a view of its own, a session whose first message is
// first; the turns below are appended to the object the view reads, as a
// runtime that runs the session in this process appends to it.
func followed(t *testing.T, first string) (*Model, openedMsg) {
	t.Helper()
	m := testModel(t)
	m.d.Prewarm = func(context.Context, string) error { return nil }
	m.SetSize(100, 30)
	s := realSession(t, m)
	store(t, s, sessions.TypeUser, first)
	opened := m.Open(s.ID())().(openedMsg)
	return m, opened
}

// store appends a message of text to s as a runtime stores it.
func store(t *testing.T, s *sessions.Session, typ, text string) {
	t.Helper()
	role := provider.RoleUser
	if typ == sessions.TypeAssistant {
		role = provider.RoleAssistant
	}
	msg := entries.StoredMessage{Message: provider.Message{Role: role, Parts: []provider.Part{{Type: provider.PartText, Text: text}}}, StopReason: provider.StopEnd}
	if _, err := s.Append(context.Background(), typ, msg); err != nil {
		t.Fatal(err)
	}
}

// runEach runs cmd and the commands it batches, each on its own goroutine
// as a program runs them, and returns their messages once all are done.
func runEach(cmd tea.Cmd) []tea.Msg {
	var (
		mu   sync.Mutex
		out  []tea.Msg
		wg   sync.WaitGroup
		walk func(tea.Cmd)
	)
	walk = func(c tea.Cmd) {
		if c == nil {
			return
		}
		wg.Go(func() {
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					walk(c)
				}
				return
			}
			if msg != nil {
				mu.Lock()
				out = append(out, msg)
				mu.Unlock()
			}
		})
	}
	walk(cmd)
	wg.Wait()
	return out
}

// refreshes picks the rereads out of msgs.
func refreshes(msgs []tea.Msg) []refreshedMsg {
	var out []refreshedMsg
	for _, msg := range msgs {
		if r, ok := msg.(refreshedMsg); ok {
			out = append(out, r)
		}
	}
	return out
}

// Another program's turn: its start has the view reread the session (for
// its prompt), its end rereads it again (for what it stored). The first
// read is made before the answer is stored, but its message is late: it
// reaches the view after the second. The answer stays on screen.
func TestALateRereadDoesNotTakeTheAnswerBack(t *testing.T) {
	m, opened := followed(t, "first question")
	m.Update(opened)
	sid, s := opened.id, opened.sess

	store(t, s, sessions.TypeUser, "make the notes say bye")
	early := m.event(events.AgentStarted{SessionID: sid})
	if early == nil {
		t.Fatal("the other program's turn started without a reread")
	}
	older := early() // read now, delivered last
	m.event(events.TextDelta{SessionID: sid, Text: "Plan: change notes.txt"})
	store(t, s, sessions.TypeAssistant, "Plan: change notes.txt")
	m.event(events.MessageEnded{SessionID: sid, Text: "Plan: change notes.txt", StopReason: provider.StopEnd})
	newer := refreshes(runEach(m.event(events.AgentEnded{SessionID: sid, StopReason: provider.StopEnd})))
	if len(newer) != 1 {
		t.Fatalf("the turn's end made %d rereads", len(newer))
	}
	m.Update(newer[0])
	m.Update(older)
	if v := m.View(); !strings.Contains(v, "make the notes say bye") || !strings.Contains(v, "Plan: change notes.txt") {
		t.Errorf("after the late reread the other program's turn shows as:\n%s", v)
	}
}

// A session opened while another program's turn ends: the view reads the
// session, the turn stores its answer and ends (its events go to the
// programs showing the session, which this one does not yet), and only
// then does the view start showing the session. It shows the answer.
func TestOpeningCatchesUpWithATurnThatEndedMeanwhile(t *testing.T) {
	m, opened := followed(t, "first question")
	sid, s := opened.id, opened.sess

	store(t, s, sessions.TypeAssistant, "the answer")
	for _, e := range []events.Event{
		events.MessageEnded{SessionID: sid, Text: "the answer", StopReason: provider.StopEnd},
		events.AgentEnded{SessionID: sid, StopReason: provider.StopEnd},
	} {
		m.d.Events.Publish(e)
	}
	cmd := m.Update(opened)
	m.stopWatch() // the poll for other processes' appends plays no part here
	for _, msg := range runEach(cmd) {
		m.Update(msg)
	}
	if v := m.View(); !strings.Contains(v, "first question") || !strings.Contains(v, "the answer") {
		t.Errorf("the session opened as the turn ended shows:\n%s", v)
	}
}

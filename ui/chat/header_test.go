package chat

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// TestChatHeaderCallsTheSessionAsTheListDoes: an unnamed session's header
// shows its first message's first line, as its list row does, clipped to
// the screen, even on a branch that starts before that message; a name
// wins.
func TestChatHeaderCallsTheSessionAsTheListDoes(t *testing.T) {
	m := testModel(t)
	m.SetSize(60, 20)
	s := realSession(t, m)
	first := "fix the login bug " + strings.Repeat("and more ", 20) + "\nsecond line"
	msg := entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: first}}}}
	if _, err := s.Append(t.Context(), sessions.TypeUser, msg); err != nil {
		t.Fatal(err)
	}
	list := m.tab.List
	list.SetSize(60, 20)
	list.Update(list.Open(*m.project)())
	m.Update(m.Open(s.ID())())
	header := func() string { h, _, _ := strings.Cut(m.View(), "\n"); return h }
	if h := header(); !strings.Contains(h, "fix the login bug") || strings.Contains(h, "unnamed") || strings.Contains(h, "second line") || ansi.StringWidth(h) > 60 {
		t.Errorf("the header of an unnamed session: %q", h)
	}
	m.Update(branchedMsg{edit: true}) // continued from before the message: nothing on the branch yet
	if h := header(); !strings.Contains(h, "fix the login bug") {
		t.Errorf("the header on a branch before the first message: %q", h)
	}
	var row string
	for _, l := range strings.Split(list.View(), "\n") {
		if strings.HasPrefix(l, "› ") {
			row = l
		}
	}
	if !strings.Contains(row, "fix the login bug") {
		t.Errorf("its list row: %q", row)
	}
	m.title = "login"
	if h := header(); !strings.Contains(h, "login") || strings.Contains(h, "fix the") {
		t.Errorf("the header of a named session: %q", h)
	}
}

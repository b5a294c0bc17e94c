package sessionlist

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	coresession "github.com/pi-tui/pi-tui/core/session"
)

// selectedRow returns the list's row marked as selected.
func selectedRow(t *testing.T, m *Model) string {
	t.Helper()
	for _, l := range strings.Split(m.View(), "\n") {
		if strings.HasPrefix(l, "› ") {
			return l
		}
	}
	t.Fatalf("no row is selected:\n%s", m.View())
	return ""
}

// TestSessionListFirstAndLast: home/g and end/G go to the first and last
// session.
func TestSessionListFirstAndLast(t *testing.T) {
	m := testModel(t)
	m.sid = ""
	m.SetSize(100, 30)
	m.list = []coresession.Summary{{ID: "a", Title: "alpha"}, {ID: "b", Title: "beta"}, {ID: "c", Title: "gamma"}}
	for _, c := range []struct {
		key  tea.KeyMsg
		want string
	}{
		{tea.KeyMsg{Type: tea.KeyEnd}, "gamma"},
		{tea.KeyMsg{Type: tea.KeyHome}, "alpha"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("G")}, "gamma"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")}, "alpha"},
	} {
		m.Update(c.key)
		if row := selectedRow(t, m); !strings.Contains(row, c.want) {
			t.Errorf("after %s the selected row is %q, want %s", c.key, row, c.want)
		}
	}
}

// TestNoProjectSaysHowToOpenOne: with no project open the tab says how to
// open one (o on its row in Projects) and its help lists none of the
// list's keys, which do nothing there.
func TestNoProjectSaysHowToOpenOne(t *testing.T) {
	m := testModel(t)
	m.project, m.sid = nil, ""
	m.SetSize(100, 30)
	view := m.View()
	if !strings.Contains(view, "select one and press o") || strings.Contains(view, "enter, then o") {
		t.Errorf("the empty tab says:\n%s", view)
	}
	if help := m.Help(); len(help) != 0 {
		t.Errorf("the help lists %v with no project open", help)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	if m.CapturesText() {
		t.Error("/ started a filter of no list")
	}
}

// TestChatHeaderCallsTheSessionAsTheListDoes: an unnamed session's header
// shows its first message's first line, as its list row does, clipped to
// the screen; a name wins.
func TestChatHeaderCallsTheSessionAsTheListDoes(t *testing.T) {
	m := testModel(t)
	m.SetSize(60, 20)
	first := "fix the login bug " + strings.Repeat("and more ", 20) + "\nsecond line"
	m.list = []coresession.Summary{{ID: "s1", FirstMessage: first, Messages: 1}}
	header := func() string { h, _, _ := strings.Cut(m.View(), "\n"); return h }
	if h := header(); !strings.Contains(h, "fix the login bug") || strings.Contains(h, "unnamed") || strings.Contains(h, "second line") || ansi.StringWidth(h) > 60 {
		t.Errorf("the header of an unnamed session: %q", h)
	}
	m.sid = ""
	if row := selectedRow(t, m); !strings.Contains(row, "fix the login bug") {
		t.Errorf("its list row: %q", row)
	}
	m.sid, m.title = "s1", "login"
	if h := header(); !strings.Contains(h, "login") || strings.Contains(h, "fix the") {
		t.Errorf("the header of a named session: %q", h)
	}
}

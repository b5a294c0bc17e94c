package sessionlist

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
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
	m.SetSize(100, 30)
	m.list = []sessions.Summary{{ID: "a", Title: "alpha"}, {ID: "b", Title: "beta"}, {ID: "c", Title: "gamma"}}
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
	m.project = nil
	m.SetSize(100, 30)
	view := m.View()
	if !strings.Contains(view, "select one and press o") || strings.Contains(view, "enter, then o") {
		t.Errorf("the empty tab says:\n%s", view)
	}
	if help := m.Help(); len(help) != 0 {
		t.Errorf("the help lists %v with no project open", help)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	if m.Filtering() {
		t.Error("/ started a filter of no list")
	}
}

func testModel(t *testing.T) *Model {
	t.Helper()
	_, rts := uitest.Host(t)
	m := New(Deps{Ctx: t.Context(), Runtimes: rts, UI: uitest.UI()}, Actions{})
	m.project = &projects.Project{Name: "p"}
	return m
}

// Every key the list's table handles shows in its help, and only those.
func TestListKeysAreData(t *testing.T) {
	m := testModel(t)
	keytest.Check(t, "session list", m.keys, m.Help())
}

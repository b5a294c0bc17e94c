package sessionlist

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
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
	m.Update(listMsg{list: []sessions.Summary{{ID: "a", Title: "alpha"}, {ID: "b", Title: "beta"}, {ID: "c", Title: "gamma"}}})
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
	h, rts := uitest.Host(t)
	m := New(Deps{Ctx: t.Context(), Store: h.Sessions, Sessions: rts.Sessions(), Worktrees: h.Worktrees, UI: uitest.UI()}, Actions{})
	m.project = &registry.Project{Name: "p"}
	return m
}

// Every key the list's table handles shows in its help, and only those.
func TestListKeysAreData(t *testing.T) {
	m := testModel(t)
	keytest.Check(t, "session list", m.keys, m.Help())
}

// sessionsNamed returns n sessions called "session 00" and on, newest
// first as the list reads them.
func sessionsNamed(n int) []sessions.Summary {
	out := make([]sessions.Summary, n)
	for i := range out {
		out[i] = sessions.Summary{ID: fmt.Sprint("s", i), Title: fmt.Sprintf("session %02d", i), Messages: 1}
	}
	return out
}

var (
	keyDown = tea.KeyMsg{Type: tea.KeyDown}
	keyUp   = tea.KeyMsg{Type: tea.KeyUp}
	keyEnd  = tea.KeyMsg{Type: tea.KeyEnd}
	keyHome = tea.KeyMsg{Type: tea.KeyHome}
)

// assertFits fails when the view is taller than the screen or shows no
// selected row holding want.
func assertFits(t *testing.T, m *Model, height int, want string) {
	t.Helper()
	view := m.View()
	if n := strings.Count(view, "\n") + 1; n > height {
		t.Fatalf("the list draws %d lines on a screen of %d:\n%s", n, height, view)
	}
	if row := selectedRow(t, m); !strings.Contains(row, want) {
		t.Fatalf("the selected row is %q, want %s", row, want)
	}
}

// TestSessionListKeepsTheCursorOnScreen: with more sessions than the
// screen has lines, the selected session is always drawn, going down
// past the bottom, to the end, back up past the top and home, and the
// list never draws more lines than the screen has.
func TestSessionListKeepsTheCursorOnScreen(t *testing.T) {
	const height = 10 // seven rows under the title and the filter line
	m := testModel(t)
	m.SetSize(240, height) // wide enough for the header's keys on one line
	m.Update(listMsg{list: sessionsNamed(40)})
	assertFits(t, m, height, "session 00")
	for i := 1; i <= 12; i++ {
		m.Update(keyDown)
		assertFits(t, m, height, fmt.Sprintf("session %02d", i))
	}
	m.Update(keyEnd)
	assertFits(t, m, height, "session 39")
	for i := 38; i >= 25; i-- {
		m.Update(keyUp)
		assertFits(t, m, height, fmt.Sprintf("session %02d", i))
	}
	m.Update(keyHome)
	assertFits(t, m, height, "session 00")
	if !strings.Contains(m.View(), "session 06") || strings.Contains(m.View(), "session 07") {
		t.Errorf("home does not show the first screenful:\n%s", m.View())
	}
}

// TestSessionListFixLineStaysOnScreen: the selected session whose
// worktree binding is invalid shows a second line saying how to fix it;
// at the bottom of a full screen that line is drawn too, within the
// screen, with the row above it scrolled away.
func TestSessionListFixLineStaysOnScreen(t *testing.T) {
	const height = 10
	m := testModel(t)
	m.SetSize(240, height) // the header and the fix on one line each
	list := sessionsNamed(40)
	m.Update(listMsg{list: list, of: worktree.Sessions{Invalid: map[string]*worktree.InvalidError{"s7": {Why: "its folder is not a worktree of the project"}}}})
	for range 7 {
		m.Update(keyDown)
	}
	assertFits(t, m, height, "session 07")
	view := m.View()
	if !strings.Contains(view, "its worktree binding is invalid, so it works in nothing") {
		t.Fatalf("the fix of the selected session is not shown:\n%s", view)
	}
	if strings.Contains(view, "session 00") || strings.Contains(view, "session 01") || !strings.Contains(view, "session 02") {
		t.Errorf("the list did not scroll by the fix line's room:\n%s", view)
	}
}

// TestSessionListFilterMovesWithArrowsOnly: while the filter has the keys
// the arrows move through the matches, letters (j, k, g) are typed into
// the query, and esc clears it with the cursor back on the first
// session.
func TestSessionListFilterMovesWithArrowsOnly(t *testing.T) {
	m := testModel(t)
	m.SetSize(100, 10)
	m.Update(listMsg{list: sessionsNamed(40)})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	for _, r := range "session 1" {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	assertFits(t, m, 10, "session 10")
	for i := 11; i <= 19; i++ {
		m.Update(keyDown)
		assertFits(t, m, 10, fmt.Sprintf("session %02d", i))
	}
	m.Update(keyDown) // the last match: it stays
	assertFits(t, m, 10, "session 19")
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	if got := m.filter.input.Value(); got != "session 1j" {
		t.Errorf("j in the filter made the query %q, want it typed", got)
	}
	if strings.Contains(m.View(), "› ") {
		t.Errorf("a query nothing matches still selects a row:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if m.Filtering() {
		t.Fatal("esc did not clear the filter")
	}
	assertFits(t, m, 10, "session 00")
}

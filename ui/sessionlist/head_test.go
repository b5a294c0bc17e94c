package sessionlist

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// header is the list's header as a person reads it: the lines above the
// blank one under it, joined.
func header(t *testing.T, m *Model) string {
	t.Helper()
	head, _, ok := strings.Cut(m.View(), "\n\n")
	if !ok {
		t.Fatalf("no blank line under the header:\n%s", m.View())
	}
	return strings.Join(strings.Fields(head), " ")
}

// TestHeaderNamesEveryKeyAtEveryWidth: the header names each of the
// list's keys with what it does, from the keymap, wrapped (never cut) at
// 60, 80 and 120 columns; the worktree keys only while a listed session
// has a worktree, as only then do they do anything; and the rows under a
// taller header still keep the cursor on screen.
func TestHeaderNamesEveryKeyAtEveryWidth(t *testing.T) {
	k := defaultKeys()
	always := []string{"Sessions · p"}
	for _, b := range []struct{ key, desc string }{
		{k.Open.Help().Key, k.Open.Help().Desc}, {k.New.Help().Key, k.New.Help().Desc},
		{k.Worktree.Help().Key, k.Worktree.Help().Desc}, {k.Rename.Help().Key, k.Rename.Help().Desc},
		{k.Delete.Help().Key, k.Delete.Help().Desc}, {k.Filter.Help().Key, k.Filter.Help().Desc},
	} {
		always = append(always, b.key+" "+b.desc)
	}
	wt := []string{"d worktree diff", "M merge worktree", "X discard worktree"}
	for _, width := range []int{60, 80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m := testModel(t)
			m.SetSize(width, 12)
			m.Update(listMsg{list: sessionsNamed(40)})
			head := header(t, m)
			for _, w := range always {
				if !strings.Contains(head, w) {
					t.Errorf("the header does not say %q:\n%s", w, m.View())
				}
			}
			for _, w := range wt {
				if strings.Contains(head, w) {
					t.Errorf("with no worktree the header says %q", w)
				}
			}
			bound := map[string]sessions.Worktree{"s3": {Branch: "pi/s3"}}
			m.Update(listMsg{list: sessionsNamed(40), of: worktree.Sessions{Bound: bound}})
			head = header(t, m)
			for _, w := range append(always, wt...) {
				if !strings.Contains(head, w) {
					t.Errorf("with a worktree session the header does not say %q:\n%s", w, m.View())
				}
			}
			for _, l := range strings.Split(m.View(), "\n") {
				if ansi.StringWidth(l) > width {
					t.Errorf("a line is %d cells wide on a screen of %d: %q", ansi.StringWidth(l), width, l)
				}
			}
			for range 20 {
				m.Update(keyDown)
			}
			assertFits(t, m, 12, "session 20")
		})
	}
}

// TestFixWrapsUnderItsRow: the fix of a session whose worktree binding is
// invalid is a sentence the user acts on (which key unbinds it, that
// nothing is deleted, why): at 80 columns it wraps under the row, whole,
// and the list still fits the screen.
func TestFixWrapsUnderItsRow(t *testing.T) {
	const height = 12
	m := testModel(t)
	m.SetSize(80, height)
	why := "its folder is not a worktree of the project: /tmp/trial/worktrees/pi-00deb16d holds another repository"
	m.Update(listMsg{list: sessionsNamed(40), of: worktree.Sessions{Invalid: map[string]*worktree.InvalidError{"s7": {Why: why}}}})
	for range 7 {
		m.Update(keyDown)
	}
	assertFits(t, m, height, "session 07")
	prose := strings.Join(strings.Fields(m.View()), " ")
	if want := "its worktree binding is invalid, so it works in nothing (X unbinds it, deleting nothing; /fork forks it): " + why; !strings.Contains(prose, want) {
		t.Errorf("the fix is not shown whole:\n%s", m.View())
	}
	if strings.Contains(m.View(), "…") {
		t.Errorf("something is cut:\n%s", m.View())
	}
}

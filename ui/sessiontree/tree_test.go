package sessiontree

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// chain returns a session of n entries without branches, "entry 00"
// first, each on the current branch.
func chain(n int) []sessions.TreeEntry {
	out := make([]sessions.TreeEntry, n)
	parent := ""
	for i := range out {
		id := fmt.Sprint("e", i)
		out[i] = sessions.TreeEntry{Entry: sessions.NewEntry(id, parent, "message", nil), Parent: parent, OnPath: true}
		parent = id
	}
	return out
}

// describe names an entry by its number, as the transcript would by its text.
func describe(e sessions.Entry) string {
	var n int
	fmt.Sscanf(e.ID, "e%d", &n)
	return fmt.Sprintf("entry %02d", n)
}

// selected returns the page's selected line, failing when the page is
// taller than h or shows none.
func selected(t *testing.T, p *Page, w, h int) string {
	t.Helper()
	view := p.View(w, h)
	lines := strings.Split(view, "\n")
	if len(lines) > h {
		t.Fatalf("the tree draws %d lines on a screen of %d:\n%s", len(lines), h, view)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "› ") {
			return l
		}
	}
	t.Fatalf("no entry is selected:\n%s", view)
	return ""
}

func press(p *Page, keys ...tea.KeyMsg) {
	for _, k := range keys {
		p.Update(k)
	}
}

// TestTreeKeepsTheCursorOnScreen: in a session longer than the screen the
// tree opens on the entry the session is at (its last), drawn on screen;
// ↑ past the window's top, pgup, home/g and end/G keep the selected
// entry drawn, and home and end reach the first and the last entry.
func TestTreeKeepsTheCursorOnScreen(t *testing.T) {
	const w, h = 80, 10 // eight entries between the title and the count
	tree := chain(60)
	p := New(uitest.UI(), false, tree, "e59", describe, nil, nil)
	if got := selected(t, p, w, h); !strings.Contains(got, "▶ entry 59") {
		t.Fatalf("the tree opens on %q, want the leaf, entry 59", got)
	}
	for i := 58; i >= 45; i-- {
		press(p, tea.KeyMsg{Type: tea.KeyUp})
		if got := selected(t, p, w, h); !strings.Contains(got, fmt.Sprintf("entry %02d", i)) {
			t.Fatalf("after ↑ the selected entry is %q, want entry %02d", got, i)
		}
	}
	press(p, tea.KeyMsg{Type: tea.KeyPgUp})
	if got := selected(t, p, w, h); !strings.Contains(got, "entry 38") {
		t.Errorf("pgup from entry 45 selects %q, want entry 38 (a window less one)", got)
	}
	for _, c := range []struct {
		key  tea.KeyMsg
		want string
	}{
		{tea.KeyMsg{Type: tea.KeyHome}, "entry 00"},
		{tea.KeyMsg{Type: tea.KeyEnd}, "entry 59"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g")}, "entry 00"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("G")}, "entry 59"},
	} {
		press(p, c.key)
		if got := selected(t, p, w, h); !strings.Contains(got, c.want) {
			t.Errorf("after %s the selected entry is %q, want %s", c.key, got, c.want)
		}
	}
	press(p, tea.KeyMsg{Type: tea.KeyHome})
	if view := p.View(w, h); !strings.Contains(view, "1 of 60 entries") || !strings.Contains(view, "entry 07") || strings.Contains(view, "entry 08") {
		t.Errorf("home does not show the first screenful with its count:\n%s", view)
	}
}

// TestTreeActsOnTheSelectedEntry: enter continues from the entry under
// the cursor and f forks from it, with its text, after moving to it
// with the keys.
func TestTreeActsOnTheSelectedEntry(t *testing.T) {
	var got []string
	act := func(what string) func(sessions.TreeEntry, string) tea.Cmd {
		return func(te sessions.TreeEntry, text string) tea.Cmd {
			got = append(got, what+" "+te.ID+" "+text)
			return nil
		}
	}
	tree := chain(30)
	p := New(uitest.UI(), false, tree, "e29", describe, act("jump"), act("fork"))
	p.View(80, 10)
	press(p, tea.KeyMsg{Type: tea.KeyHome}, tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyEnter})
	press(p, tea.KeyMsg{Type: tea.KeyEnd}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("f")})
	if want := []string{"jump e1 entry 01", "fork e29 entry 29"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the tree acted on %q, want %q", got, want)
	}
}

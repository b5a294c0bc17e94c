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
func describe(te sessions.TreeEntry, _ func(string) (sessions.TreeEntry, bool)) (string, string) {
	var n int
	fmt.Sscanf(te.ID, "e%d", &n)
	line := fmt.Sprintf("entry %02d", n)
	return line, line
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

// search presses / and hands the page what its command read of the
// rows, as the program would.
func search(t *testing.T, p *Page) {
	t.Helper()
	_, cmd := p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	if cmd == nil {
		t.Fatal("/ reads nothing for the search")
	}
	p.Update(cmd())
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

func typeKeys(p *Page, s string) {
	for _, r := range s {
		press(p, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// TestTreeSearchNarrowsAndEscClears: / takes the keys (q and f type),
// the rows narrow to those holding every word, labels included; the
// cursor stays on its entry while it matches, else goes to its nearest
// ancestor that does; esc clears the search, keeping the entry found
// selected, and a second esc closes. The header and the count wrap at a
// narrow width rather than lose their ends.
func TestTreeSearchNarrowsAndEscClears(t *testing.T) {
	tree := chain(30)
	tree[3].Label = "Before the Fix"
	var closed bool
	ui := uitest.UI()
	p := New(ui, false, tree, "e29", describe, nil, nil)
	const w, h = 60, 12
	search(t, p)
	if !p.CapturesText() {
		t.Fatal("the search does not take the keys")
	}
	typeKeys(p, "entry 2")
	// entry 02, 12, 20…29 match; the cursor stays on entry 29.
	if got := selected(t, p, w, h); !strings.Contains(got, "entry 29") {
		t.Errorf("the search moved the cursor off a match: %q", got)
	}
	view := p.View(w, h)
	if !strings.Contains(view, "12 of 12 matching, of 30 entries") || strings.Contains(view, "entry 13") {
		t.Errorf("the search shows:\n%s", view)
	}
	typeKeys(p, "5")
	if got := selected(t, p, w, h); !strings.Contains(got, "entry 25") {
		t.Errorf("with entry 29 out of the matches the cursor is on %q, want its nearest matching ancestor, entry 25", got)
	}
	press(p, tea.KeyMsg{Type: tea.KeyCtrlU})
	typeKeys(p, "fix BEFORE q")
	if view := p.View(w, h); !strings.Contains(view, "no entry holds every word") {
		t.Errorf("q and f did not type:\n%s", view)
	}
	press(p, tea.KeyMsg{Type: tea.KeyBackspace}, tea.KeyMsg{Type: tea.KeyBackspace})
	if got := selected(t, p, w, h); !strings.Contains(got, "[Before the Fix] entry 03") {
		t.Errorf("the label does not match, or is not first: %q", got)
	}
	press(p, tea.KeyMsg{Type: tea.KeyEsc})
	if p.CapturesText() || !strings.Contains(p.View(w, h), "of 30 entries") {
		t.Errorf("esc did not clear the search:\n%s", p.View(w, h))
	}
	if got := selected(t, p, w, h); !strings.Contains(got, "entry 03") {
		t.Errorf("esc lost the entry found: %q", got)
	}
	for _, l := range strings.Split(p.View(w, h), "\n") {
		if strings.HasSuffix(l, "…") {
			t.Errorf("a line is cut: %q", l)
		}
	}
	p.ui.Nav.Drain()
	press(p, tea.KeyMsg{Type: tea.KeyEsc})
	for _, op := range p.ui.Nav.Drain() {
		closed = closed || op.Close != nil
	}
	if !closed {
		t.Error("a second esc did not close the tree")
	}
}

// TestTreeLabelIsNeverCut: a label goes first on its row, so a long
// entry at a narrow width loses its end, not its label.
func TestTreeLabelIsNeverCut(t *testing.T) {
	tree := chain(3)
	tree[1].Label = "checkpoint"
	long := func(te sessions.TreeEntry, _ func(string) (sessions.TreeEntry, bool)) (string, string) {
		line := "you: " + strings.Repeat("word ", 40)
		return line, line
	}
	p := New(uitest.UI(), false, tree, "e1", long, nil, nil)
	if got := selected(t, p, 60, 10); !strings.Contains(got, "[checkpoint] you: word") {
		t.Errorf("the labelled row reads %q", got)
	}
}

// TestTreeSearchTypedWhileReading: words typed before the rows are read
// for the search (a long session) wait for them: the count says so, and
// once read the matches show with the cursor on the entry it was on.
func TestTreeSearchTypedWhileReading(t *testing.T) {
	p := New(uitest.UI(), false, chain(30), "e29", describe, nil, nil)
	p.View(80, 12)
	_, read := p.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	typeKeys(p, "entry 2")
	if view := p.View(80, 12); !strings.Contains(view, "reading the 30 entries to search them…") {
		t.Errorf("while reading:\n%s", view)
	}
	p.Update(read())
	if got := selected(t, p, 80, 12); !strings.Contains(got, "entry 29") || !strings.Contains(p.View(80, 12), "12 of 12 matching") {
		t.Errorf("once read, the cursor is on %q:\n%s", got, p.View(80, 12))
	}
}

package chat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/registry"
)

// typeKeys types s into the chat and runs what the keys start (a file
// list load), as the program would.
func typeKeys(m *Model, s string) {
	for _, r := range s {
		if cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}); cmd != nil {
			if msg, ok := cmd().(filesMsg); ok {
				m.Update(msg)
			}
		}
	}
}

// menuRows returns the view's lines that start with a mark column.
func menuRows(view, prefix string) []string {
	var out []string
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, "› "), prefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestMenusMarkTheSelectedRowWithoutColour: without colour (NO_COLOR) the
// / and @ menus mark the selected entry with "›", the others with two
// spaces, as the lists do; ↓ moves the mark.
func TestMenusMarkTheSelectedRowWithoutColour(t *testing.T) {
	m := testModel(t)
	root := t.TempDir()
	for _, f := range []string{"alpha.go", "beta.go"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m.project = &registry.Project{Name: "p", Root: root}
	m.SetSize(100, 40)

	typeKeys(m, "/")
	rows := menuRows(m.View(), "/")
	if len(rows) < 2 || !strings.HasPrefix(rows[0], "› /") || !strings.HasPrefix(rows[1], "  /") {
		t.Fatalf("the / menu does not mark its first row:\n%s", strings.Join(rows, "\n"))
	}
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	rows = menuRows(m.View(), "/")
	if !strings.HasPrefix(rows[0], "  /") || !strings.HasPrefix(rows[1], "› /") {
		t.Fatalf("↓ does not move the mark:\n%s", strings.Join(rows, "\n"))
	}

	m.in.input.SetValue("")
	m.in.refreshMenu()
	typeKeys(m, "@")
	rows = menuRows(m.View(), "alpha.go")
	rows = append(rows, menuRows(m.View(), "beta.go")...)
	marked := 0
	for _, r := range rows {
		if strings.HasPrefix(r, "› ") {
			marked++
		} else if !strings.HasPrefix(r, "  ") {
			t.Errorf("an @ menu row has no mark column: %q", r)
		}
	}
	if len(rows) != 2 || marked != 1 {
		t.Fatalf("the @ menu marks %d of its rows:\n%s", marked, m.View())
	}
}

// TestMenuKeepsTheHighlightOnScreen: an @ menu with more files than it
// has room for draws the highlighted entry whichever way ↑/↓ move it:
// ↑ on the first goes round to the last, ↓ on the last back to the
// first, and ↓ past the bottom scrolls; it never draws more entries than
// its room.
func TestMenuKeepsTheHighlightOnScreen(t *testing.T) {
	m := testModel(t)
	root := t.TempDir()
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("file%02d.go", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m.project = &registry.Project{Name: "p", Root: root}
	m.SetSize(100, 40)
	typeKeys(m, "@")
	check := func(after string) {
		t.Helper()
		it, ok := m.in.comp.items.Selected()
		if !ok {
			t.Fatalf("after %s nothing is highlighted", after)
		}
		rows := menuRows(m.View(), "file")
		var marked []string
		for _, r := range rows {
			if strings.HasPrefix(r, "› ") {
				marked = append(marked, r)
			}
		}
		if len(marked) != 1 || !strings.Contains(marked[0], it.label) {
			t.Fatalf("after %s the menu marks %q, want only %s:\n%s", after, marked, it.label, m.View())
		}
		if limit := m.in.comp.items.Lines(); len(rows) > limit || len(rows) < 3 {
			t.Fatalf("after %s the menu draws %d entries in a room of %d", after, len(rows), limit)
		}
	}
	check("@")
	if !strings.Contains(m.View(), "more: ↑/↓, or type to narrow") {
		t.Fatalf("the menu does not say more entries are below:\n%s", m.View())
	}
	first, _ := m.in.comp.items.Selected()
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	check("↑ on the first entry")
	if c := m.in.comp.items.Cursor(); c != m.in.comp.items.Len()-1 {
		t.Errorf("↑ on the first entry highlights entry %d of %d, want the last", c, m.in.comp.items.Len())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	check("↓ on the last entry")
	if it, _ := m.in.comp.items.Selected(); it.label != first.label {
		t.Errorf("↓ on the last entry highlights %s, want the first, %s", it.label, first.label)
	}
	for i := range 15 {
		m.Update(tea.KeyMsg{Type: tea.KeyDown})
		check(fmt.Sprintf("%d × ↓", i+1))
	}
}

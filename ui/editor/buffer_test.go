package editor

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

func newTestBuffer(w, h int) *Buffer {
	b := New(lipgloss.NewStyle().Reverse(true), lipgloss.NewStyle())
	b.SetSize(w+gutterWidth, h)
	return b
}

func keys(b *Buffer, ks ...string) {
	for _, k := range ks {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		case "delete":
			msg = tea.KeyMsg{Type: tea.KeyDelete}
		case "left":
			msg = tea.KeyMsg{Type: tea.KeyLeft}
		case "right":
			msg = tea.KeyMsg{Type: tea.KeyRight}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "end":
			msg = tea.KeyMsg{Type: tea.KeyEnd}
		case "home":
			msg = tea.KeyMsg{Type: tea.KeyHome}
		case "ctrl+k":
			msg = tea.KeyMsg{Type: tea.KeyCtrlK}
		case "ctrl+w":
			msg = tea.KeyMsg{Type: tea.KeyCtrlW}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		b.Update(msg)
	}
}

func TestEditing(t *testing.T) {
	b := newTestBuffer(20, 5)
	keys(b, "héllo", "enter", "wörld", "up", "end", "!", "down", "home", "delete", "x", "tab")
	if got := b.Value(); got != "héllo!\nx\törld" {
		t.Fatalf("value = %q", got)
	}
	if b.Len() != len(b.Value()) {
		t.Errorf("Len = %d, want %d", b.Len(), len(b.Value()))
	}
	keys(b, "home", "backspace") // join lines
	if got := b.Value(); got != "héllo!x\törld" || b.Len() != len(got) {
		t.Fatalf("after join = %q (len %d)", got, b.Len())
	}
	keys(b, "ctrl+w")
	if got := b.Value(); got != "x\törld" {
		t.Fatalf("after ctrl+w = %q", got)
	}
	keys(b, "ctrl+k")
	if got := b.Value(); got != "" || b.Len() != 0 {
		t.Fatalf("after ctrl+k = %q", got)
	}
}

func TestPasteKeepsEverythingAndDropsControls(t *testing.T) {
	b := newTestBuffer(20, 5)
	big := strings.Repeat("line\r\n", 20000) + "end"
	b.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	if b.Lines() != 20001 {
		t.Fatalf("%d lines after pasting 20,001", b.Lines())
	}
	b.SetValue("")
	b.Insert("a\x1b[31mb\x07c")
	if b.Value() != "a[31mbc" {
		t.Errorf("control characters kept: %q", b.Value())
	}
	if strings.Count(b.View(), "\n") != 4 {
		t.Errorf("view is not 5 rows")
	}
}

func TestWrapAndCursorVisible(t *testing.T) {
	b := newTestBuffer(10, 3)
	b.SetValue("aaaa bbbb cccc dddd eeee\nshort\nlast")
	keys(b, "down", "down", "down", "down", "down")
	row, _ := b.Cursor()
	if row != 2 {
		t.Fatalf("cursor row %d after moving down through wrapped rows", row)
	}
	view := b.View()
	if !strings.Contains(view, "last") {
		t.Errorf("cursor line not visible:\n%s", view)
	}
	for _, line := range strings.Split(view, "\n") {
		if w := lipgloss.Width(line); w > 10+gutterWidth {
			t.Errorf("row %q is %d cells wide", line, w)
		}
	}
}

// TestControlsShowAsGlyphs: a file's escape sequences are drawn as
// one-cell stand-ins, never sent to the terminal, and the cursor still
// lands where the text is.
func TestControlsShowAsGlyphs(t *testing.T) {
	b := newTestBuffer(40, 3)
	b.Focus()
	b.SetValue("a\x1b[8mb\u202ec\x9b")
	view := b.View()
	if strings.ContainsAny(view, "\x1b\u202e\u009b") {
		t.Fatalf("a control reached the view: %q", view)
	}
	if !strings.Contains(view, "a␛[8mb�c") {
		t.Fatalf("view = %q", view)
	}
	keys(b, "home", "right", "right")
	b.Insert("X")
	if got := b.Value(); got != "a\x1bX[8mb\u202ec\x9b" {
		t.Fatalf("editing around a control: %q", got)
	}
}

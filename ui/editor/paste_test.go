package editor

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func pasteKey(s string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true}
}

func newInputBuffer() *Buffer {
	b := newTestBuffer(60, 5)
	b.CollapsePastes()
	return b
}

// A paste of more than 10 lines is one marker, drawn as pi draws it, and
// expands to its whole text; one of 10 lines stays inline.
func TestLongPasteCollapses(t *testing.T) {
	b := newInputBuffer()
	keys(b, "see: ")
	b.Update(pasteKey(lines(200)))
	if b.Lines() != 1 {
		t.Fatalf("the paste takes %d lines of the input", b.Lines())
	}
	if v := ansi.Strip(b.View()); !strings.Contains(v, "see: [paste #1 +200 lines]") {
		t.Errorf("view:\n%s", v)
	}
	if got := b.Expanded(); got != "see: "+lines(200) {
		t.Errorf("expanded = %q…", got[:40])
	}
	b.Update(pasteKey(lines(10)))
	if got := b.Value(); !strings.HasSuffix(got, lines(10)) || b.Lines() != 11 {
		t.Errorf("a 10-line paste did not stay inline: %d lines", b.Lines())
	}
	long := strings.Repeat("x", 1001)
	c := newInputBuffer()
	c.Update(pasteKey(long))
	if v := ansi.Strip(c.View()); !strings.Contains(v, "[paste #1 1,001 chars]") || c.Expanded() != long {
		t.Errorf("a 1,001-character paste:\n%s", v)
	}
	// A buffer that does not collapse (a file's) keeps every paste inline.
	f := newTestBuffer(60, 5)
	f.Update(pasteKey(lines(200)))
	if f.Value() != lines(200) {
		t.Error("a file buffer collapsed a paste")
	}
}

// The marker is one character to move over and to delete; undo brings a
// deleted marker back with its text; a second paste is #2, and one after
// the first is deleted still follows the highest number in the text.
func TestMarkerEditsAsOneCharacter(t *testing.T) {
	b := newInputBuffer()
	b.Update(pasteKey(lines(20)))
	keys(b, "!", "left", "left", "x")
	if got := b.Expanded(); got != "x"+lines(20)+"!" {
		t.Errorf("moving over the marker: %q", got)
	}
	keys(b, "end", "backspace", "backspace")
	if got := b.Expanded(); got != "x" {
		t.Errorf("backspace over the marker: %q", got)
	}
	b.Update(tea.KeyMsg{Type: tea.KeyCtrlZ})
	if got := b.Expanded(); got != "x"+lines(20)+"!" {
		t.Errorf("undo did not bring the paste back: %q", got)
	}
	b.Update(pasteKey(lines(30)))
	if v := ansi.Strip(b.View()); !strings.Contains(v, "[paste #1 +20 lines]") || !strings.Contains(v, "[paste #2 +30 lines]") {
		t.Errorf("two pastes:\n%s", v)
	}
	keys(b, "home", "right", "delete") // the first marker
	b.Update(pasteKey(lines(40)))
	if v := ansi.Strip(b.View()); !strings.Contains(v, "[paste #3 +40 lines]") {
		t.Errorf("a paste after deleting #1:\n%s", v)
	}
}

// ExpandPaste opens the marker under or just before the cursor into its
// text, the cursor at the text's start, as one edit that undo takes back.
func TestExpandPaste(t *testing.T) {
	b := newInputBuffer()
	keys(b, "a ")
	b.Update(pasteKey(lines(12)))
	keys(b, " b")
	if b.ExpandPaste() {
		t.Fatal("expanded with the cursor two characters after the marker")
	}
	keys(b, "left", "left")
	if !b.ExpandPaste() {
		t.Fatal("no marker just before the cursor")
	}
	if got := b.Value(); got != "a "+lines(12)+" b" {
		t.Fatalf("expanded = %q", got)
	}
	if row, col := b.Cursor(); row != 0 || col != 2 {
		t.Errorf("cursor at %d:%d, want the text's start 0:2", row, col)
	}
	if v := ansi.Strip(b.View()); !strings.Contains(v, "line 1") {
		t.Errorf("the text is not in view:\n%s", v)
	}
	b.Update(tea.KeyMsg{Type: tea.KeyCtrlZ})
	if b.Lines() != 1 || b.Expanded() != "a "+lines(12)+" b" {
		t.Errorf("undo did not collapse it again: %q", b.Value())
	}
	keys(b, "home")
	keys(b, "right", "right") // onto the marker
	if !b.ExpandPaste() {
		t.Error("no marker under the cursor")
	}
}

// No rune typed, pasted or set from elsewhere can pass for a marker;
// text from elsewhere holding a paste of the buffer shows its marker.
func TestMarkersCannotBeForged(t *testing.T) {
	b := newInputBuffer()
	b.Update(pasteKey(lines(11)))
	marker := []rune(b.Value())[0]
	keys(b, string(marker), string(pasteFirst+7))
	if got := []rune(b.Value()); len(got) != 3 || got[1] != '\uFFFD' || got[2] != '\uFFFD' {
		t.Errorf("typed marker runes became %q", string(got))
	}
	if got := b.Collapse("again: " + lines(11) + string(pasteFirst+7)); got != "again: "+string(marker)+"\uFFFD" {
		t.Errorf("Collapse = %q", got)
	}
}

// A marker wider than the text area is cut to it, never past the edge.
func TestNarrowMarker(t *testing.T) {
	b := newTestBuffer(10, 3)
	b.CollapsePastes()
	keys(b, "ab")
	b.Update(pasteKey(lines(20)))
	keys(b, "home") // a cursor at a full row's end takes a cell past it, marker or not
	for _, row := range strings.Split(ansi.Strip(b.View()), "\n") {
		if w := ansi.StringWidth(row); w > 10+gutterWidth {
			t.Errorf("row %q is %d cells wide", row, w)
		}
	}
	if v := ansi.Strip(b.View()); !strings.Contains(v, "[paste #1") {
		t.Errorf("view:\n%s", v)
	}
}

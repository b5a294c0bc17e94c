package settingsview

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Settings text wraps at spaces, never past the width, never losing a
// word, and keeps hyphenated words whole; only a word longer than a line
// is broken.
func TestWrapTextKeepsEveryWord(t *testing.T) {
	text := "auto — runs the built-in engine: pi not found: install pi (npm install -g @earendil-works/pi-coding-agent) or set PI_TUI_PI"
	for _, w := range []int{16, 30, 56, 98} {
		lines := wrapText(text, w)
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("at %d: %q is wider", w, l)
			}
		}
		if got, want := strings.ReplaceAll(strings.Join(lines, ""), " ", ""), strings.ReplaceAll(text, " ", ""); got != want {
			t.Errorf("at %d the text changed: %q", w, got)
		}
		if w >= 40 && !strings.Contains(strings.Join(lines, "\n"), "@earendil-works/pi-coding-agent") {
			t.Errorf("at %d a hyphenated word broke:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	long := strings.Repeat("x", 40)
	if lines := wrapText("a "+long, 16); len(lines) != 4 || strings.Join(lines[1:], "") != long {
		t.Errorf("a long word: %q", lines)
	}
}

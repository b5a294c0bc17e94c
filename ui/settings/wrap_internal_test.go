package settings

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

// A picker row breaks between its parts: the key a model needs moves to
// the next line whole rather than being split or cut.
func TestPackPartsKeepsAPartWhole(t *testing.T) {
	parts := []rowPart{{text: "google/gemini-3.1-pro-preview"}, {sep: "  ", text: "Gemini"}, {sep: " ", text: "3.1"},
		{sep: " ", text: "Pro"}, {sep: " ", text: "(preview)"}, {sep: " ", text: "— needs GEMINI_API_KEY"}}
	got := packParts(parts, 76, 74)
	want := []string{"google/gemini-3.1-pro-preview  Gemini 3.1 Pro (preview)", "— needs GEMINI_API_KEY"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := packParts(parts, 100, 98); len(got) != 1 {
		t.Errorf("a row that fits takes %d lines: %q", len(got), got)
	}
	// Narrower than a part: it wraps at its words, no line too wide,
	// nothing lost.
	got = packParts(parts, 16, 16)
	for _, l := range got {
		if ansi.StringWidth(l) > 16 {
			t.Errorf("at 16 cells a line is %q", l)
		}
	}
	if j := strings.Join(got, ""); !strings.Contains(j, "google/gemini-3.1-pro-preview") || !strings.HasSuffix(strings.Join(got, " "), "— needs GEMINI_API_KEY") {
		t.Errorf("at 16 cells: %q", got)
	}
}

package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Wrap breaks at spaces: no word is split unless it is longer than a
// line, a long path breaks after a '/', wide runes count two cells, and
// no line is wider than asked. Every word comes out in order.
func TestWrapAtWords(t *testing.T) {
	long := "Supercalifragilisticexpialidociousandthensomemoreletterstomakeitlonger"
	path := "~/src/very/deeply/nested/folder/with/a/long/name/that/goes/on/AGENTS.md"
	wide := "日本語のテキストはとても長いです日本語のテキストはとても長いです日本語"
	text := "Unsaved changes to " + path + " would be lost, and " + long + " too; " + wide + " end."
	for _, w := range []int{20, 33, 40, 68} {
		got := Wrap(text, w)
		lines := strings.Split(got, "\n")
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: line %q is %d cells", w, l, ansi.StringWidth(l))
			}
		}
		if strings.Join(strings.Fields(got), "") != strings.Join(strings.Fields(text), "") {
			t.Errorf("width %d: text changed:\n%s", w, got)
		}
		// Short words are never split: each is whole on some line.
		for _, word := range strings.Fields("Unsaved changes to would be lost, and too; end.") {
			found := false
			for _, l := range lines {
				for _, f := range strings.Fields(l) {
					if f == word {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("width %d: %q was split:\n%s", w, word, got)
			}
		}
		// The path breaks only after a slash.
		for _, l := range lines {
			if strings.HasPrefix(path, strings.TrimSpace(l)) || strings.Contains(path, strings.TrimSpace(l)) {
				if s := strings.TrimSpace(l); len(s) < len(path) && strings.Contains(path, s) && !strings.HasSuffix(s, "/") && !strings.HasSuffix(path, s) {
					t.Errorf("width %d: the path broke inside a name: %q", w, s)
				}
			}
		}
	}
}

// A list item's continuation lines up under its text, not back at the
// border.
func TestWrapHangingIndent(t *testing.T) {
	got := Wrap("  • unsaved changes to the memory of a project with a long name", 30)
	want := "  • unsaved changes to the\n    memory of a project with a\n    long name"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// WrapExact keeps every character, spaces included, breaking at spaces.
func TestWrapExactKeepsEverything(t *testing.T) {
	cmd := "grep -rn  'a b'   /very/long/path/to/some/file/that/goes/on/and/on.txt | head"
	for _, w := range []int{10, 16, 25} {
		lines := WrapExact(cmd, w)
		if strings.Join(lines, "") != cmd {
			t.Errorf("width %d: %q does not join back to the command", w, lines)
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: %q too wide", w, l)
			}
		}
	}
	if got := WrapExact("echo hello world", 11); got[0] != "echo hello " || got[1] != "world" {
		t.Errorf("got %q", got)
	}
}

// A sentence breaks at spaces, never at a hyphen inside a word (issue
// 24: the new session's introduction showed "auto-" / "edits modes").
func TestWrapKeepsHyphenatedWords(t *testing.T) {
	text := "its commands run as you, and in the ask and auto-edits modes only once you approve them"
	for w := 20; w <= 60; w++ {
		for _, l := range strings.Split(Wrap(text, w), "\n") {
			if strings.HasSuffix(l, "-") || strings.HasPrefix(l, "edits") {
				t.Errorf("width %d: %q broke auto-edits", w, l)
			}
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: %q is too wide", w, l)
			}
		}
	}
}

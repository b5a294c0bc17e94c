package common

import (
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// A hint line breaks only between two hints, and a hint wider than the
// line wraps at its spaces: every key stays named, none is cut.
func TestHintLinesBreakBetweenHints(t *testing.T) {
	hints := []string{"enter change", "↑/↓ move", "d delete rule", "r reload", "ctrl+k command palette", "? help"}
	got := HintLines("Settings", hints, 40)
	want := []string{"Settings  enter change · ↑/↓ move", "d delete rule · r reload", "ctrl+k command palette · ? help"}
	if !slices.Equal(got, want) {
		t.Errorf("at 40 cells:\n got %q\nwant %q", got, want)
	}
	if got := HintLines("", hints, 200); !slices.Equal(got, []string{"enter change · ↑/↓ move · d delete rule · r reload · ctrl+k command palette · ? help"}) {
		t.Errorf("wide enough for one line: %q", got)
	}
	got = HintLines("", []string{"a", "U undo it and every later one", "b"}, 12)
	for _, l := range got {
		if ansi.StringWidth(l) > 12 {
			t.Errorf("a line is wider than 12 cells: %q", l)
		}
	}
	if !slices.Equal(got, []string{"a", "U undo it", "and every", "later one", "b"}) {
		t.Errorf("a hint wider than the line: %q", got)
	}
}

// A hint line names a binding by its key and the name its help starts
// with; ? shows the rest.
func TestHintIsTheKeyAndTheHelpsName(t *testing.T) {
	for _, c := range []struct {
		b    key.Binding
		want string
	}{
		{NewGlobalKeys().Palette, "ctrl+k command palette"},
		{NewGlobalKeys().PaletteTyping, "ctrl+g command palette"},
		{key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")), "s sort"},
		{key.NewBinding(key.WithKeys("x")), ""},
	} {
		if got := Hint(c.b); got != c.want {
			t.Errorf("Hint(%q) = %q, want %q", c.b.Help().Desc, got, c.want)
		}
	}
}

// Hints break between hints, never inside one; a hint wider than a whole
// line wraps inside itself.
func TestJoinHints(t *testing.T) {
	b := func(k, h string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, h)) }
	hints := HintList(b("a", "add"), b("w", "agent may write"), b("ctrl+s", "save"), key.NewBinding(key.WithKeys("x")))
	if got := JoinHints(hints, " · ", 30); got != "a add · w agent may write\nctrl+s save" {
		t.Errorf("got %q", got)
	}
	if got := JoinHints(HintList(b("w", "agent may write")), " · ", 10); got != "w agent\nmay write" {
		t.Errorf("a hint wider than the line: %q", got)
	}
}

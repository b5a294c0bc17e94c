package common

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

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

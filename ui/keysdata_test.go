package ui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The shell's own keys are all in its help (on a tab, and while typing),
// and its help holds only them; while typing it shows no key that typing
// takes (q, ?, 1) nor shift+tab, which is the chat's thinking level.
func TestShellKeysAreData(t *testing.T) {
	t.Parallel()
	m := newFixture(t).model()
	onTab, typing := m.globalHelpAt(focusProjects, 0), m.globalHelpAt(focusSessionText, 0)
	keytest.Check(t, "shell", m.keys, [][]key.Binding{onTab, typing})
	for _, b := range typing {
		for _, k := range b.Keys() {
			if len([]rune(k)) == 1 || k == "shift+tab" {
				t.Errorf("while typing, the help shows %q, which typing takes", k)
			}
		}
	}
}

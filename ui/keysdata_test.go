package ui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The shell's own keys are all in its help, and its help holds only them.
func TestShellKeysAreData(t *testing.T) {
	m := newFixture(t).model()
	keytest.Check(t, "shell", m.keys, [][]key.Binding{m.globalHelp()})
}

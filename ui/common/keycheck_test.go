package common

import (
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

func TestKeyCoverageFindsBothGaps(t *testing.T) {
	b := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, "x"))
	}
	table := struct {
		Save, Quit key.Binding
		Nested     struct{ Up, Down key.Binding }
	}{Save: b("ctrl+s", "ctrl+s"), Quit: b("q", "q")}
	table.Nested.Up = b("↑/↓", "up")
	table.Nested.Down = key.NewBinding(key.WithKeys("down")) // Up's partner: no help of its own
	notShown, notInTable := KeyCoverage(table, [][]key.Binding{{table.Save, table.Nested.Up, b("x", "x")}})
	if !slices.Equal(notShown, []string{"q"}) || !slices.Equal(notInTable, []string{"x"}) {
		t.Errorf("notShown %v, notInTable %v", notShown, notInTable)
	}
	if got := len(Bindings(&table)); got != 4 {
		t.Errorf("Bindings found %d, want 4", got)
	}
}

package sessiontree

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// BenchmarkTreeOpenAndHome opens the tree of a 20,000-entry session on
// its last entry, draws it, presses home and draws again: what a user
// waits for between /tree and the first screens.
func BenchmarkTreeOpenAndHome(b *testing.B) {
	tree := chain(20_000)
	ui := uitest.UI()
	b.ReportAllocs()
	for b.Loop() {
		p := New(ui, false, tree, "e19999", describe, nil, nil)
		_ = p.View(120, 40)
		p.Update(tea.KeyMsg{Type: tea.KeyHome})
		_ = p.View(120, 40)
	}
}

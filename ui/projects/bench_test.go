package projects

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
)

// BenchmarkFilter5000 is one keystroke in the filter over 5,000 projects,
// update and view. Target: ≤ 5 ms/op.
func BenchmarkFilter5000(b *testing.B) {
	dir := b.TempDir()
	h, err := host.Open(context.Background(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	m := New(h, common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))), Actions{})
	m.SetSize(120, 40)
	list := make([]registry.Project, 5000)
	for i := range list {
		list[i] = registry.Project{ID: fmt.Sprintf("p%08x", i), Name: fmt.Sprintf("project-%04d", i),
			Root: fmt.Sprintf("/home/u/src/group-%02d/project-%04d", i%50, i), Pinned: i%97 == 0, Archived: i%13 == 0}
	}
	m.Update(loadedMsg{list: list})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'/'}})
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'1'}}, {Type: tea.KeyBackspace}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Update(keys[i%2])
		_ = m.View()
		i++
	}
	if !m.Filtering() {
		b.Fatal("the filter was not active")
	}
}

// Package uitest builds what the ui packages' model tests share: a real
// host over temporary folders with its runtime manager, and styles
// without colour, so that views compare as text.
package uitest

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Host opens a host whose home, agent dir and data dir are in a
// temporary folder, with its runtime manager; it closes when tb ends.
func Host(tb testing.TB) (*host.Host, *runtimes.Manager) {
	tb.Helper()
	dir := tb.TempDir()
	h, err := host.Open(tb.Context(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, host.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Close() })
	return h, h.Runtimes
}

// UI returns screens' styles without colour.
func UI() *common.UI {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return common.NewUI(common.NewStyles(r))
}

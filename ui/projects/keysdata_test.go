package projects

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// Every screen of the Projects tab shows the keys its table handles, and
// only those (each step of the add dialog counted together).
func TestProjectsKeysAreData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, err := host.Open(context.Background(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st := common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard)))
	m := New(h, st, Actions{})
	defer m.Close()
	keytest.Check(t, "projects", m.keys, m.Help())

	add := newAddDialog(h, st)
	help := add.Help()
	add.broad = "/"
	help = append(help, add.Help()...)
	add.broad, add.moved = "", &movedMsg{}
	help = append(help, add.Help()...)
	keytest.Check(t, "add dialog", add.keys, help)

	g := newGroupDialog(m, registry.Project{Name: "p"})
	keytest.Check(t, "group dialog", g.keys, g.Help())
	r := newRelocateDialog(h, st, registry.Project{Name: "p"}, "")
	keytest.Check(t, "relocate dialog", r.keys, r.Help())
}

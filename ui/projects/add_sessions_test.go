package projects_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
)

// A folder pi has already worked in shows its sessions as soon as it is
// added, not "0 sessions" until it is first opened.
func TestAddedProjectCountsThePiSessionsItHas(t *testing.T) {
	t.Parallel()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	root := filepath.Join(home, "work")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), pl, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := h.Sessions.Dir(root)
	h.Close()
	for _, id := range []string{"01a24600-0000-7000-8000-000000000001", "01a24600-0000-7000-8000-000000000002"} {
		body := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-12-01T10:00:00.000Z","cwd":"` + root + `"}` + "\n"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "2026-12-01T10-00-00-000Z_"+id+".jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	m, done, err := ui.NewKit(context.Background(), ui.KitOptions{DataDir: pl.DataDir, AgentDir: pl.AgentDir, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	s := screentest.Start(t, m, 120, 30, screentest.Prose)
	s.WaitFor("No projects yet")
	s.Keys("n")
	s.WaitFor("Add a project")
	s.TM.Type("~/work")
	s.TM.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	s.WaitFor("2 sessions")
}

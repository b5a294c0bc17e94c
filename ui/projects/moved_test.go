package projects_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
)

// movedShop registers ~/src/shop (with an AGENTS.md and one session in
// a session folder shared by every project) and moves its folder to
// ~/work/shop, as a user's mv would. It returns the session file.
func movedShop(t *testing.T, pl paths.Places, sessions string) string {
	t.Helper()
	old := filepath.Join(pl.Home, "src", "shop")
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, "AGENTS.md"), []byte("Run the tests first."), 0o644)
	reg, done := openRegistry(t, pl)
	if _, _, err := reg.Add(context.Background(), old, "", true); err != nil {
		t.Fatal(err)
	}
	done()
	os.MkdirAll(sessions, 0o700)
	file := filepath.Join(sessions, "2026-12-01T05-26-26-631Z_0190a0b0.jsonl")
	os.WriteFile(file, []byte(`{"type":"session","version":3,"id":"0190a0b0-0000-7000-8000-000000000001","timestamp":"2026-12-01T05:26:26.631Z","cwd":"`+old+`"}`+"\n"), 0o600)
	os.MkdirAll(filepath.Join(pl.Home, "work"), 0o755)
	if err := os.Rename(old, filepath.Join(pl.Home, "work", "shop")); err != nil {
		t.Fatal(err)
	}
	return file
}

// Adding the moved folder offers to relocate the missing project; r
// relocates it, with the session folder from the program's environment
// (not the process's): the shared folder's header now names the new
// root, and there is still one project.
func TestAddingAMovedFolderOffersToRelocate(t *testing.T) {
	t.Parallel()
	pl := places(t)
	sessions := filepath.Join(pl.Home, "shared-sessions")
	file := movedShop(t, pl, sessions)
	s := startEnv(t, pl, map[string]string{"PI_CODING_AGENT_SESSION_DIR": sessions})
	s.waitFor("shop", "folder missing")
	s.keys("n")
	s.waitFor("Add a project")
	s.tm.Type("~/work/shop")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	s.waitFor("This looks like shop, whose folder ~/src/shop is missing (the same folder name and instruction files).",
		"Relocate it here (r) / add as a new project (n)")
	s.keys("r")
	s.waitFor("relocated shop to ~/work/shop: 1 session, memory and trust moved")
	reg, done := openRegistry(t, pl)
	defer done()
	list, _ := reg.List(context.Background(), true)
	if len(list) != 1 || list[0].Root != filepath.Join(pl.Home, "work", "shop") || list[0].Missing || !list[0].Trusted {
		t.Fatalf("after relocating: %+v", list)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `"cwd":"`+filepath.Join(pl.Home, "work", "shop")+`"`) {
		t.Errorf("the session header was not moved to the new root: %s", b)
	}
}

// n adds the folder as a project of its own; the missing one stays.
func TestAddingAMovedFolderAsNew(t *testing.T) {
	t.Parallel()
	pl := places(t)
	movedShop(t, pl, filepath.Join(pl.Home, "sessions"))
	s := start(t, pl)
	s.waitFor("shop", "folder missing")
	s.keys("n")
	s.waitFor("Add a project")
	s.tm.Type("~/work/shop")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	s.tm.Type("shop2")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS})
	s.waitFor("Relocate it here (r) / add as a new project (n)")
	s.keys("n")
	s.waitFor("added shop2")
	reg, done := openRegistry(t, pl)
	defer done()
	if list, _ := reg.List(context.Background(), true); len(list) != 2 {
		t.Fatalf("%d projects, want the missing one and the new one", len(list))
	}
}

// w on a row turns the agent-writes switch on, and again off; the menu
// lists it.
func TestAgentWritesFromTheRow(t *testing.T) {
	t.Parallel()
	pl := places(t)
	reg, done := openRegistry(t, pl)
	os.MkdirAll(filepath.Join(pl.Home, "api"), 0o755)
	p, _, err := reg.Add(context.Background(), filepath.Join(pl.Home, "api"), "", true)
	if err != nil {
		t.Fatal(err)
	}
	done()
	s := start(t, pl)
	s.waitFor("api")
	s.keys("enter")
	s.waitFor("w Agent may write memory: now off")
	s.keys("esc", "w")
	s.waitFor("agent writes on: the agent of api may change its memory")
	h := openHost(t, pl)
	defer h.Close()
	if on, _ := h.Memory.AgentWrites(context.Background(), p.ID); !on {
		t.Error("the switch is off after w")
	}
	s.keys("w")
	s.waitFor("agent writes off")
	if on, _ := h.Memory.AgentWrites(context.Background(), p.ID); on {
		t.Error("the switch is on after a second w")
	}
}

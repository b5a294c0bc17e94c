package instructionsview_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
)

// In Show instructions, tab completes the path field as the add-project
// field does: names from the project root, files too; several matches
// are listed under the field; and a path leading outside the project,
// by .. or through a link, lists nothing and says so.
func TestShowInstructionsPathCompletes(t *testing.T) {
	t.Parallel()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	root := filepath.Join(home, "repo")
	write(t, filepath.Join(root, "AGENTS.md"), "Root rules.")
	write(t, filepath.Join(root, "packages", "api", "AGENTS.md"), "API rules.")
	write(t, filepath.Join(root, "packages", "api", "main.go"), "package main\n")
	write(t, filepath.Join(root, "packages", "web", "index.ts"), "")
	write(t, filepath.Join(home, "outside", "secret.txt"), "")
	if err := os.Symlink(filepath.Join(home, "outside"), filepath.Join(root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), pl, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = h.Projects.Add(context.Background(), root, "repo", true)
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	m, done, err := ui.NewKit(context.Background(), ui.KitOptions{DataDir: pl.DataDir, AgentDir: pl.AgentDir, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	s := screentest.Start(t, m, 80, 24, screentest.Plain)

	s.WaitFor("repo")
	s.Keys("enter")
	s.WaitFor("Show instructions")
	s.Keys("i")
	s.WaitFor("Chain for the project root")
	s.Keys("/", "pack", "tab")
	s.WaitScreen("path: packages/")
	s.Keys("tab") // two folders: both listed under the field
	s.WaitScreen("path: packages/", "api/", "web/")
	s.Keys("a", "tab")
	s.WaitScreen("path: packages/api/")
	s.Keys("m", "tab")
	s.WaitScreen("path: packages/api/main.go")
	s.Keys("enter")
	s.WaitScreen("Chain for", "packages/api/main.go", "packages/api/AGENTS.md")

	s.Keys("/", "ctrl+u", "../", "tab")
	s.WaitScreen("tab completes names inside the project only", "~ is outside ~/repo")
	s.Keys("ctrl+u", "elsew", "tab")
	s.WaitScreen("path: elsewhere/")
	s.Keys("tab")
	s.WaitScreen("~/outside is outside ~/repo")
	s.Keys("esc")
	s.Final()
}

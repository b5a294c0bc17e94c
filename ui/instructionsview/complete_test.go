package instructionsview_test

import (
	"os"
	"path/filepath"
	"testing"
)

// In Show instructions, tab completes the path field as the add-project
// field does: names from the project root, files too; several matches
// are listed under the field; and a path leading outside the project,
// by .. or through a link, lists nothing and says so.
func TestShowInstructionsPathCompletes(t *testing.T) {
	t.Parallel()
	pl := places(t)
	home := pl.Home
	root := filepath.Join(home, "repo")
	write(t, filepath.Join(root, "AGENTS.md"), "Root rules.")
	write(t, filepath.Join(root, "packages", "api", "AGENTS.md"), "API rules.")
	write(t, filepath.Join(root, "packages", "api", "main.go"), "package main\n")
	write(t, filepath.Join(root, "packages", "web", "index.ts"), "")
	write(t, filepath.Join(home, "outside", "secret.txt"), "")
	if err := os.Symlink(filepath.Join(home, "outside"), filepath.Join(root, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	s := openPage(t, pl, root, "repo", 80, 24, nil)
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

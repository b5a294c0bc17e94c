package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// plainSession runs a prompt in the project itself and returns the new
// session's id and file.
func plainSession(t *testing.T, c *cli, text string) (id, path string) {
	t.Helper()
	before := map[string]bool{}
	var rows []struct{ ID, Path string }
	json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows)
	for _, r := range rows {
		before[r.ID] = true
	}
	c.ok("prompt", "--project", "mono", "--yes", text)
	rows = nil
	json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows)
	for _, r := range rows {
		if !before[r.ID] {
			return r.ID, r.Path
		}
	}
	t.Fatal("the prompt made no session")
	return "", ""
}

// editBinding appends a pi-tui.worktree record to a session file by hand,
// as an edited (or planted) file holds it.
func editBinding(t *testing.T, path string, w sessions.Worktree) {
	t.Helper()
	w.Kind = sessions.KindWorktree
	appendEntry(t, path, map[string]any{"type": "custom", "id": "e0e0e0e0", "customType": "pi-tui.worktree", "data": w})
}

// appendEntry appends an entry to a session file by hand, as another
// program (pi, an editor) would: a child of the last entry.
func appendEntry(t *testing.T, path string, entry map[string]any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var last struct{ ID string }
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	entry["parentId"], entry["timestamp"] = last.ID, "2026-01-01T00:00:00.000Z"
	line, _ := json.Marshal(entry)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}

// A session file edited to bind the session to a folder outside, or to
// another session's worktree and branch: sessions list says the binding
// is invalid, a prompt is refused, and discard only unbinds it, deleting
// no folder and no branch.
func TestEditedBindingFromTheCommandLine(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, writeWhatIsAsked)
	_, branchA, rootA := promptInWorktree(t, c, "hello from a")
	outside := t.TempDir()
	worktreetest.Write(t, outside, "greet.txt", "outside\n")
	p, pathP := plainSession(t, c, "plain one")
	editBinding(t, pathP, sessions.Worktree{Root: outside, Dir: outside, Branch: "pi/" + worktree.ShortID(p), Base: "main", Main: root})
	q, pathQ := plainSession(t, c, "plain two")
	editBinding(t, pathQ, sessions.Worktree{Root: rootA, Dir: rootA, Branch: branchA, Base: "main", Main: root})

	out := c.ok("sessions", "list", "mono")
	for _, want := range []string{"INVALID binding", "The worktree binding of session " + p + " is invalid: its folder",
		"The worktree binding of session " + q + " is invalid: its branch", "pi-tui sessions discard " + q} {
		if !strings.Contains(out, want) {
			t.Errorf("sessions list lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, branchA+" ") {
		t.Errorf("the legitimate worktree session is not listed with its branch:\n%s", out)
	}
	var rows []struct {
		ID       string
		Worktree *struct{ Invalid string }
	}
	json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows)
	invalid := 0
	for _, r := range rows {
		if r.Worktree != nil && r.Worktree.Invalid != "" {
			invalid++
		}
	}
	if invalid != 2 {
		t.Errorf("sessions list --json marks %d bindings invalid, want 2: %+v", invalid, rows)
	}

	c.fails(1, "is invalid", "prompt", "--project", "mono", "--session", p, "--yes", "write to greet")
	if got, _ := os.ReadFile(filepath.Join(outside, "greet.txt")); string(got) != "outside\n" {
		t.Errorf("the prompt wrote in the outside folder: %q", got)
	}
	c.fails(1, "is invalid", "sessions", "merge", q)
	c.fails(1, "is invalid", "instructions", "--session", p)

	c.fails(1, "pass --yes", "sessions", "discard", q)
	if out := c.ok("sessions", "discard", q, "--yes"); !strings.Contains(out, "Unbound session "+q) || !strings.Contains(out, "Nothing was deleted") {
		t.Errorf("discard of the invalid binding: %s", out)
	}
	if _, err := os.Stat(rootA); err != nil {
		t.Errorf("the other session's worktree is gone: %v", err)
	}
	if strings.TrimSpace(worktreetest.Git(t, root, "branch", "--list", branchA)) == "" {
		t.Errorf("the other session's branch %s is gone", branchA)
	}
	c.ok("sessions", "discard", p, "--yes")
	if _, err := os.Stat(filepath.Join(outside, "greet.txt")); err != nil {
		t.Errorf("the outside folder lost its file: %v", err)
	}
	if out := c.ok("sessions", "list", "mono"); strings.Contains(out, "INVALID") {
		t.Errorf("unbound sessions are still listed as invalid:\n%s", out)
	}
	// The unbound session works in the project again.
	c.ok("prompt", "--project", "mono", "--session", p, "--yes", "back home")
	if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "back home\n" {
		t.Errorf("the unbound session did not work in the project: %q", got)
	}
}

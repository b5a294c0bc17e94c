package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The project walk happens when a call that can change any file comes,
// not at launch (ADR 0087): a headless prompt whose calls name their
// files (write, edit) walks nothing, and what a later bash command does
// is still caught whole, by either engine.

// onDemandTurns are three prompts, each run by a process of its own: a
// write; a bash command that changes, deletes and adds (the first walk of
// its process, with no stat cache saved before it); a write and a bash
// command on the written file (the write taken in before the first walk
// reads the saved stat cache).
var onDemandTurns = map[string][][]fakemodel.Call{
	"note": {{call("n1", "write", "path", "notes.txt", "content", "noted\n")}},
	"shuffle": {{call("s1", "bash", "command",
		"printf 'func Other() {}\\n' >> packages/api/handler.go && rm AGENTS.md && printf 'new\\n' > src/f007.txt")}},
	"mixed": {
		{call("m1", "write", "path", "notes.txt", "content", "noted twice\n")},
		{call("m2", "bash", "command", "printf 'again\\n' >> notes.txt && printf 'changed\\n' > src/f001.txt")},
	},
}

// onDemandFiles is how many files the tests add to the project, each
// with a content of its own: a walk would keep a copy of each.
const onDemandFiles = 100

// checkWalkOnDemand runs onDemandTurns through prompt (session "" starts
// one) in root, which holds onDemandFiles more files, and checks what a
// user sees: the data dir keeps no copy of the project after the write,
// `sessions changes` lists every file each call changed, and a rewind to
// the first message brings the project back.
func checkWalkOnDemand(t *testing.T, c *cli, root string, prompt func(session, text string)) {
	t.Helper()
	for i := range onDemandFiles {
		writeFile(t, filepath.Join(root, "src", fmt.Sprintf("f%03d.txt", i)), fmt.Sprintf("file %d\n", i))
	}
	before := snapshot(t, root)

	prompt("", "note it")
	id, path := onlySession(t, c)
	if n := contentsKept(t, c); n != 1 {
		t.Errorf("after a one-write prompt the data dir keeps %d contents, want 1 (the written file's): the project was copied", n)
	}
	prompt(id, "shuffle things")
	prompt(id, "mixed up")

	entries := readEntries(t, path)
	checkChanges(t, changesOf(t, c, id), []wantChange{
		{n: 1, call: "n1", tool: "write", path: "notes.txt", status: "added", added: 1, state: "active"},
		{n: 2, call: "s1", tool: "bash", path: "AGENTS.md", status: "deleted", removed: 1, state: "active"},
		{n: 3, call: "s1", tool: "bash", path: "packages/api/handler.go", status: "modified", added: 1, state: "active"},
		{n: 4, call: "s1", tool: "bash", path: "src/f007.txt", status: "modified", added: 1, removed: 1, state: "active"},
		{n: 5, call: "m1", tool: "write", path: "notes.txt", status: "modified", added: 1, removed: 1, state: "active"},
		{n: 6, call: "m2", tool: "bash", path: "notes.txt", status: "modified", added: 1, state: "active"},
		{n: 7, call: "m2", tool: "bash", path: "src/f001.txt", status: "modified", added: 1, removed: 1, state: "active"},
	}, id, callEntries(entries))

	c.ok("sessions", "undo", id, "--to", userEntry(t, entries, "note it"))
	sameFiles(t, "after rewinding to the first message", snapshot(t, root), before)
}

// contentsKept counts the file contents in the data dir's checkpoint store.
func contentsKept(t *testing.T, c *cli) int {
	t.Helper()
	n := 0
	filepath.WalkDir(filepath.Join(c.env["PI_TUI_DATA_DIR"], "checkpoints", "objects"), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

func TestWalkOnDemand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, stepsScript(onDemandTurns))
	checkWalkOnDemand(t, c, root, func(session, text string) {
		args := []string{"prompt", "--project", "mono", "--yes"}
		if session != "" {
			args = append(args, "--session", session)
		}
		c.ok(append(args, text)...)
	})
}

func TestRealPiWalkOnDemand(t *testing.T) {
	c := realPiCLI(t)
	_, root := realPiProject(t, c, true, stepsScript(onDemandTurns))
	checkWalkOnDemand(t, c, root, func(session, text string) {
		args := []string{"--yes"}
		if session != "" {
			args = append(args, "--session", session)
		}
		code, evs, errs := promptPi(t, c, append(args, text)...)
		if code != 0 {
			t.Fatalf("prompt %q: exit %d: %s", text, code, errs)
		}
		launchedPi(t, evs)
		promptOK(t, evs)
	})
}

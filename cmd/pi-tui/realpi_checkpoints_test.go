package main

import (
	"encoding/json"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// Review and undo with the real pi as the engine: the host takes each
// checkpoint at the bridge's tool boundaries, and the entries the changes
// name are the assistant entries of pi's own session file.

// onlySession is the project's one session: its id and pi's file.
func onlySession(t *testing.T, c *cli) (id, path string) {
	t.Helper()
	var rows []struct{ ID, Path string }
	if err := json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("sessions list = %+v, want one session", rows)
	}
	return rows[0].ID, rows[0].Path
}

// pi runs one message's calls at once: a write and a bash command made
// together. Which of the two a file is put down to depends on which saw
// it first (README: pi's parallel calls), but every changed file is
// listed under that message's entry, and rewinding to the user's message
// restores them all, the write's file included, without --force.
func TestRealPiCheckpointsOfParallelCalls(t *testing.T) {
	c := realPiCLI(t)
	_, root := realPiProject(t, c, true, stepsScript(map[string][][]fakemodel.Call{
		"both": {{
			call("qw1", "write", "path", "notes.txt", "content", "noted\n"),
			call("qb1", "bash", "command", "printf 'func Other() {}\\n' >> packages/api/handler.go"),
		}},
	}))
	before := snapshot(t, root)
	code, evs, errs := promptPi(t, c, "--yes", "do both at once")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	promptOK(t, evs)
	after := snapshot(t, root)
	id, path := onlySession(t, c)
	entries := readEntries(t, path)
	calls := callEntries(entries)
	if calls["qw1"] == "" || calls["qw1"] != calls["qb1"] {
		t.Fatalf("want both calls in one assistant entry: %v", calls)
	}
	list := changesOf(t, c, id)
	seen := map[string]bool{}
	for _, ch := range list {
		seen[ch.Path] = true
		if ch.Entry != calls["qw1"] || ch.State != "active" || (ch.ToolCallID != "qw1" && ch.ToolCallID != "qb1") {
			t.Errorf("change %+v: want it active, made by one of the message's calls, entry %s", ch, calls["qw1"])
		}
	}
	if !seen["notes.txt"] || !seen["packages/api/handler.go"] || len(seen) != 2 {
		t.Errorf("changes = %+v, want notes.txt and packages/api/handler.go", list)
	}
	user := userEntry(t, entries, "do both at once")
	c.ok("sessions", "undo", id, "--to", user)
	sameFiles(t, "after the rewind", snapshot(t, root), before)
	c.ok("sessions", "undo", id, "--to", user, "--redo")
	sameFiles(t, "after the redo", snapshot(t, root), after)
}

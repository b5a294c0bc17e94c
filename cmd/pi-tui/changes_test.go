package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// writeThenAnswer writes notes.txt, then answers.
func writeThenAnswer(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "noted\n"}}}}
	}
	return fakemodel.Reply{Text: "Written."}
}

// Against a real session (a write made through the built-in engine): the
// list names the session, --json is an array, and an entry the session
// does not hold is refused in one line.
func TestSessionsChangesOfARealSession(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, writeThenAnswer)
	id, _ := plainSession(t, c, "write the notes")

	out := c.ok("sessions", "changes", id)
	if first, _, _ := strings.Cut(out, "\n"); !strings.HasPrefix(first, "Session "+id) {
		t.Errorf("changes does not name the session:\n%s", out)
	}
	if prefix := c.ok("sessions", "changes", id[:13]); prefix != out {
		t.Errorf("by a prefix of the id:\n%s\nwant\n%s", prefix, out)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(c.ok("sessions", "changes", id, "--json")), &list); err != nil || list == nil {
		t.Errorf("changes --json is not an array: %v", err)
	}
	c.fails(1, "has no entry deadbeef", "sessions", "undo", id, "--to", "deadbeef")
}

// The list with nothing recorded says so in one sentence naming the
// session; --json is [].
func TestSessionsChangesWithNoneRecorded(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	id, _ := plainSession(t, c, "just talk")
	if out := c.ok("sessions", "changes", id); !strings.HasPrefix(out, "Session "+id+" ") || !strings.HasSuffix(out, ": no file changes recorded.\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("changes = %q", out)
	}
	if out := c.ok("sessions", "changes", id, "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("changes --json = %q", out)
	}
}

// The text form: one aligned line a change with its number, state,
// status letter, path, line counts, tool and entry; a parent's change is
// marked with the session it was made in, a binary one says so, and one
// whose content was not kept says it cannot be undone. A path's control
// characters are shown, not sent to the terminal.
func TestChangesTextForm(t *testing.T) {
	t.Parallel()
	id := "0190a0b0-0000-7000-8000-000000000002"
	list := []checkpoints.Change{
		{N: 1, Entry: "aa11bb22", Tool: "write", Path: "README.md", Status: "added", Added: 3, State: "parent", Kept: true, Session: "0190a0b0-0000-7000-8000-000000000001"},
		{N: 1, Entry: "cc33dd44", Tool: "bash", Path: "src/app.go", Status: "modified", Added: 12, Removed: 3, State: "active", Kept: true, Session: id},
		{N: 2, Entry: "cc33dd44", Tool: "bash", Path: "logo.png", Status: "deleted", Binary: true, State: "undone", Kept: true, Session: id},
		{N: 3, Entry: "ee55ff66", Tool: "edit", Path: "big\x1b[2J.sql", Status: "modified", Added: 1, Removed: 1, State: "active", Session: id},
	}
	var b bytes.Buffer
	if err := printChanges(&b, id, id+` "work"`, list); err != nil {
		t.Fatal(err)
	}
	want := "Session " + id + ` "work": 4 changes, 1 made before it was forked (shown, not undone here)` + "\n" +
		"  1  parent  A  README.md       +3 −0   write (entry aa11bb22, in 0190a0b0)\n" +
		"  1  active  M  src/app.go      +12 −3  bash (entry cc33dd44)\n" +
		"  2  undone  D  logo.png        binary  bash (entry cc33dd44)\n" +
		"  3  active  M  big\\x1b[2J.sql  +1 −1   edit (entry ee55ff66, content not kept: cannot be undone)\n" +
		"Not recorded: .git and the files git ignores (.gitignore, info/exclude).\n" +
		"Undo one with: pi-tui sessions undo " + id + " --change N; every file back to before a message: --to ENTRY\n"
	if b.String() != want {
		t.Errorf("text form:\n%s\nwant:\n%s", b.String(), want)
	}
}

// What a write did is listed, undone (the file goes), redone, refused
// once the file was edited by hand (naming it and --force, changing
// nothing), and forced.
func TestSessionsUndoRecordedWrite(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, writeThenAnswer)
	id, _ := plainSession(t, c, "write the notes")
	notes := filepath.Join(root, "notes.txt")

	var list []struct {
		N                 int
		Entry, ToolCallID string
		Tool, Path        string
		Status, State     string
		Added, Removed    int
		Kept              bool
		Session           string
	}
	if err := json.Unmarshal([]byte(c.ok("sessions", "changes", id, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("changes = %+v", list)
	}
	ch := list[0]
	if ch.N != 1 || ch.Tool != "write" || ch.ToolCallID != "w1" || ch.Path != "notes.txt" || ch.Status != "added" ||
		ch.State != "active" || ch.Added != 1 || ch.Removed != 0 || !ch.Kept || ch.Session != id || ch.Entry == "" {
		t.Errorf("change = %+v", ch)
	}
	out := c.ok("sessions", "changes", id)
	if !strings.HasPrefix(out, "Session "+id) || !strings.Contains(out, ": 1 change\n") || !strings.Contains(out, "notes.txt") ||
		!strings.Contains(out, "+1 −0") || !strings.Contains(out, "write (entry "+ch.Entry+")") {
		t.Errorf("changes:\n%s", out)
	}

	out = c.ok("sessions", "undo", id, "--change", "1")
	if !strings.Contains(out, "Undid change 1") || !strings.Contains(out, "  notes.txt\n") {
		t.Errorf("undo said:\n%s", out)
	}
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("notes.txt is still there after the undo: %v", err)
	}
	if out := c.ok("sessions", "changes", id); !strings.Contains(out, "undone") {
		t.Errorf("changes after the undo:\n%s", out)
	}
	if out := c.ok("sessions", "undo", id, "--change", "1", "--redo"); !strings.Contains(out, "Redid change 1") {
		t.Errorf("redo said:\n%s", out)
	}
	if data, _ := os.ReadFile(notes); string(data) != "noted\n" {
		t.Errorf("after the redo notes.txt = %q", data)
	}

	// The user's own edit since: refused, naming the file, nothing written.
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.fails(1, "notes.txt", "sessions", "undo", id, "--to", ch.Entry)
	c.fails(1, "--force overwrites it", "sessions", "undo", id, "--change", "1")
	if data, _ := os.ReadFile(notes); string(data) != "mine\n" {
		t.Errorf("a refused undo wrote notes.txt: %q", data)
	}
	if out := c.ok("sessions", "undo", id, "--to", ch.Entry, "--force"); !strings.Contains(out, "Undid change 1 (from entry "+ch.Entry+" on)") {
		t.Errorf("undo --to --force said:\n%s", out)
	}
	if _, err := os.Stat(notes); !os.IsNotExist(err) {
		t.Errorf("notes.txt is still there after the forced undo: %v", err)
	}
}

// A bash command's change is caught by the walk and put down to bash.
func TestSessionsChangesOfABashCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	_, root := modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": "printf 'one\\ntwo\\n' > made.txt && rm AGENTS.md"}}}}
		}
		return fakemodel.Reply{Text: "Done."}
	})
	id, _ := plainSession(t, c, "make and remove")
	out := c.ok("sessions", "changes", id)
	for _, want := range []string{"Session " + id, ": 2 changes\n", "A  made.txt", "+2 −0", "D  AGENTS.md", "bash (entry "} {
		if !strings.Contains(out, want) {
			t.Errorf("changes lacks %q:\n%s", want, out)
		}
	}
	c.ok("sessions", "undo", id, "--change", "1")
	c.ok("sessions", "undo", id, "--change", "2")
	if _, err := os.Stat(filepath.Join(root, "AGENTS.md")); err != nil {
		t.Errorf("AGENTS.md is not back: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt is still there: %v", err)
	}
}

// prompt --json says, on each call's end, the files it changed, with the
// numbers sessions changes and undo take.
func TestPromptJSONCarriesTheCallsChanges(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, writeThenAnswer)
	_, out, errs := c.run("", "prompt", "--project", "mono", "--yes", "--json", "write the notes")
	ends := typed(jsonLines(t, out), "tool_execution_end")
	if len(ends) != 1 {
		t.Fatalf("tool ends: %v (%s)", ends, errs)
	}
	ch, _ := ends[0]["changes"].([]any)
	if len(ch) != 1 {
		t.Fatalf("changes on the end: %v", ends[0])
	}
	got := ch[0].(map[string]any)
	if got["n"] != float64(1) || got["path"] != "notes.txt" || got["status"] != "added" || got["added"] != float64(1) || got["kept"] != true {
		t.Errorf("change = %v", got)
	}
}

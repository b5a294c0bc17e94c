package runtimes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// threeTurns: "make A" writes a.txt; "make B" runs bash that adds b.txt
// and appends to a.txt; "make C" runs bash that removes b.txt and adds
// c.txt; "make D" writes d.txt. Anything else (a compaction's request)
// is answered in words.
func threeTurns(_ int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult != "" {
		return fakemodel.Reply{Text: "done"}
	}
	switch strings.TrimSpace(req.LastUser) {
	case "make A":
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "a", Name: "write", Args: map[string]any{"path": "a.txt", "content": "A\n"}}}}
	case "make B":
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b", Name: "bash", Args: map[string]any{"command": "echo B > b.txt && echo more >> a.txt"}}}}
	case "make C":
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c", Name: "bash", Args: map[string]any{"command": "rm b.txt && echo C > c.txt"}}}}
	case "make D":
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "d", Name: "write", Args: map[string]any{"path": "d.txt", "content": "D\n"}}}}
	}
	return fakemodel.Reply{Text: "The user asked for files A, B and C."}
}

func (r *rig) fileText(rel string) string {
	b, err := os.ReadFile(filepath.Join(r.root, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	return string(b)
}

// userEntry is the id of the user message saying text in the session
// file.
func (r *rig) userEntry(text string) string {
	r.t.Helper()
	s, err := r.m.Sessions().Open(context.Background(), r.sid)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, e := range s.Entries() {
		if e.Type == sessions.TypeUser && strings.Contains(string(e.Payload()), text) {
			return e.ID
		}
	}
	r.t.Fatalf("no user message %q in the session", text)
	return ""
}

// Turns that change files, a compaction, and a turn after it: undoing
// back to the first message puts every file as it was before it, across
// the compaction, and the session file keeps every entry.
func TestRewindAcrossACompaction(t *testing.T) {
	t.Parallel()
	r := newRig(t, threeTurns, nil)
	if err := r.h.SetPermissionMode(context.Background(), services.PermissionFullAuto); err != nil {
		t.Fatal(err)
	}
	r.prompt("make A")
	r.prompt("make B")
	if _, err := r.m.Compact(context.Background(), r.sid, "", ""); err != nil {
		t.Fatal(err)
	}
	r.prompt("make C")
	if r.fileText("a.txt") != "A\nmore\n" || r.fileText("b.txt") != "<none>" || r.fileText("c.txt") != "C\n" {
		t.Fatalf("the turns did not run: a=%q b=%q c=%q", r.fileText("a.txt"), r.fileText("b.txt"), r.fileText("c.txt"))
	}
	s, _ := r.m.Sessions().Open(context.Background(), r.sid)
	var compacted bool
	for _, e := range s.Entries() {
		compacted = compacted || e.Type == sessions.TypeCompaction
	}
	if !compacted {
		t.Fatal("the session holds no compaction")
	}
	cs, err := r.h.Review.Changes(context.Background(), r.sid)
	if err != nil || len(cs) != 5 {
		t.Fatalf("changes: %+v %v", cs, err)
	}
	res, err := r.h.Review.Undo(context.Background(), r.sid, checkpoints.Undo{To: r.userEntry("make A")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 5 {
		t.Errorf("undid %v, want all 5 changes", res.Changes)
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if got := r.fileText(f); got != "<none>" {
			t.Errorf("%s after the rewind = %q, want it gone (it did not exist before the first message)", f, got)
		}
	}
	if got := r.fileText("AGENTS.md"); got != "Root rule: use tabs." {
		t.Errorf("a file no turn changed: %q", got)
	}
}

// A turn, a branch back to before it, a turn on the new branch: the
// files are one, so undo --to the second turn's message undoes that turn
// only, and --to the first turn's message (earlier in the file) undoes
// what remains, whichever branch is current.
func TestRewindAcrossATreeBranch(t *testing.T) {
	t.Parallel()
	r := newRig(t, threeTurns, nil)
	if err := r.h.SetPermissionMode(context.Background(), services.PermissionFullAuto); err != nil {
		t.Fatal(err)
	}
	r.prompt("make A")
	if err := r.m.Sessions().Branch(context.Background(), r.sid, ""); err != nil {
		t.Fatal(err)
	}
	r.prompt("make D")
	if r.fileText("a.txt") != "A\n" || r.fileText("d.txt") != "D\n" {
		t.Fatal("the turns did not run")
	}
	if _, err := r.h.Review.Undo(context.Background(), r.sid, checkpoints.Undo{To: r.userEntry("make D")}); err != nil {
		t.Fatal(err)
	}
	if r.fileText("d.txt") != "<none>" || r.fileText("a.txt") != "A\n" {
		t.Fatalf("undo --to the second turn: a=%q d=%q", r.fileText("a.txt"), r.fileText("d.txt"))
	}
	res, err := r.h.Review.Undo(context.Background(), r.sid, checkpoints.Undo{To: r.userEntry("make A")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || r.fileText("a.txt") != "<none>" {
		t.Fatalf("undo --to the first turn (on the other branch): %+v a=%q", res, r.fileText("a.txt"))
	}
	// /undo's choice on the current branch: nothing left to undo.
	if e, err := r.h.Review.LastTurn(context.Background(), r.sid); err != nil || e != "" {
		t.Fatalf("LastTurn after everything was undone: %q %v", e, err)
	}
}

package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// turnsThatChangeFiles is a model whose first turn writes notes.txt and
// whose second runs bash that edits it and adds a file; every other
// message is answered in words.
func turnsThatChangeFiles() fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "done: " + strings.Fields(req.LastUser + " x")[0]}
		}
		switch req.LastUser {
		case "write":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "one\ntwo\n"}}}}
		case "bash":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": "echo three >> notes.txt && echo new > added.txt"}}}}
		}
		return fakemodel.Reply{Text: "said: " + req.LastUser}
	}
}

func reviewRig(t *testing.T, w, h int) *kitRig {
	t.Helper()
	r := newKitRig(t, w, h, turnsThatChangeFiles(), true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	return r
}

func (r *kitRig) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(r.home, "proj", rel))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// A tool call that changed files has a card under it: each file with its
// status and +N −M; ctrl+o shows the diff.
func TestToolCallsShowTheirFileChanges(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		r := reviewRig(t, size[0], size[1])
		r.say("write")
		r.waitFor("done: write", "M notes.txt  +2 −1", "ctrl+o diff")
		r.say("bash")
		r.waitFor("done: bash", "M notes.txt  +1 −0", "A added.txt  +1 −0")
		r.keys("ctrl+o")
		r.waitFor("+++ b/added.txt", "+new")
	}
}

// /undo puts the last turn's files back, after saying which; /changes
// lists every change with its state and redoes one.
func TestUndoTheLastTurnAndRedoFromTheReviewScreen(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 100, 30)
	r.say("write")
	r.waitFor("done: write")
	r.say("bash")
	r.waitFor("done: bash")
	r.command("/undo", "Undo the last turn's file changes?", "notes.txt", "added.txt")
	r.settle() // a question put after a read takes keys once the keyboard rests
	r.keys("y")
	r.waitFor("undid 2 changes")
	if got := r.read("notes.txt"); got != "one\ntwo\n" || r.exists("added.txt") {
		t.Fatalf("after /undo: notes.txt = %q, added.txt there: %v", got, r.exists("added.txt"))
	}
	r.command("/changes", "Review · the session's file changes", "── you: write", "1  active  M  +2 −1  write  notes.txt",
		"── you: bash", "2  undone  A  +1 −0  bash   added.txt", "3  undone  M  +1 −0  bash   notes.txt")
	r.keys("r") // the latest change is selected: notes.txt's
	r.waitFor("redid 1 change (3): notes.txt")
	if got := r.read("notes.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("after the redo notes.txt = %q", got)
	}
	r.keys("k", "r")
	r.waitFor("redid 1 change (2): added.txt")
	if !r.exists("added.txt") {
		t.Fatal("the redo did not bring added.txt back")
	}
}

// An undo over the user's own later edit is refused, naming the file and
// changing nothing, until the user says to overwrite.
func TestUndoRefusesOverTheUsersEditUntilForced(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 100, 30)
	r.say("write")
	r.waitFor("done: write")
	if err := os.WriteFile(filepath.Join(r.home, "proj", "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.command("/undo", "Undo the last turn's file changes?")
	r.settle()
	r.keys("y")
	r.waitFor("Nothing was undone", "notes.txt (changed since the agent left it)", "o overwrite them")
	if got := r.read("notes.txt"); got != "mine\n" {
		t.Fatalf("a refused undo wrote notes.txt: %q", got)
	}
	r.settle()
	r.keys("o")
	r.waitFor("undid 1 change: notes.txt")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("after the forced undo notes.txt = %q", got)
	}
}

// /tree, continuing from a message after which the agent changed files,
// asks about the files: files too puts them back and branches.
func TestTreeOffersToRewindTheFilesToo(t *testing.T) {
	t.Parallel()
	r := reviewRig(t, 100, 30)
	r.say("write")
	r.waitFor("done: write")
	r.command("/tree", "Tree · every branch", "you: write")
	r.keys("home", "enter")
	r.waitFor("Continue from here: the files too?", "notes.txt", "f files too", "c conversation only")
	r.settle()
	r.keys("f")
	r.waitScreen("undid 1 change: notes.txt", "branched: the old branch is kept")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("after files too: notes.txt = %q", got)
	}
}

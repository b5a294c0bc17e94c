package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	wtt "github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// A message sent in a session whose worktree folder was deleted by hand is
// not lost: the chat says the worktree is missing with the command that
// restores it, and the message comes back to the input.
func TestMessageInAMissingWorktreeIsKept(t *testing.T) {
	wtt.Need(t)
	r := newKitRig(t, 200, 30, echo, true)
	root := filepath.Join(r.home, "proj")
	wtt.Repo(t, root, nil)
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("w")
	r.waitFor("working on branch pi/", "Type a message")
	dirs, _ := filepath.Glob(filepath.Join(r.home, "data", "worktrees", "*", "*"))
	if len(dirs) != 1 {
		t.Fatalf("worktrees %v", dirs)
	}
	os.RemoveAll(dirs[0])
	r.say("hello there")
	r.waitFor("worktree")
	view := r.final()
	if !strings.Contains(view, "git") || !strings.Contains(view, "› hello there") {
		t.Errorf("no fix shown, or the message is lost:\n%s", view)
	}
}

// D on a worktree session says to discard it first, before asking anything.
func TestDeleteOfAWorktreeSessionSaysDiscardFirst(t *testing.T) {
	wtt.Need(t)
	r := newKitRig(t, 200, 30, echo, true)
	wtt.Repo(t, filepath.Join(r.home, "proj"), nil)
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("w")
	r.waitFor("working on branch pi/", "Type a message", "Session · proj ⎇ pi/") // the chat says where it works
	r.keys("ctrl+l")
	r.waitFor("⎇ pi/")
	r.keys("D")
	r.waitFor("discard it first with X")
	if view := r.final(); strings.Contains(view, "Delete session") {
		t.Errorf("a confirmation was asked:\n%s", view)
	}
}

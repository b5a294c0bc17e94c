package ui

import (
	"os"
	"strings"
	"testing"
)

// A message sent in a session whose worktree folder was deleted by hand is
// not lost: the chat says the worktree is missing with the command that
// restores it, and the message comes back to the input.
func TestMessageInAMissingWorktreeIsKept(t *testing.T) {
	t.Parallel()
	r, dir := worktreeChat(t, 200)
	os.RemoveAll(dir)
	r.say("hello there")
	// The refusal (the runtime's event) and the message's return to the
	// input (the prompt's result) come by two ways, in either order: the
	// wait is for one frame showing both.
	r.waitScreen("the worktree folder is gone", "› hello there")
	if view := r.final(); !strings.Contains(view, "git") {
		t.Errorf("no fix shown:\n%s", view)
	}
}

// D on a worktree session says to discard it first, before asking anything.
func TestDeleteOfAWorktreeSessionSaysDiscardFirst(t *testing.T) {
	t.Parallel()
	r, _ := worktreeChat(t, 200, "Session · proj ⎇ pi/") // the chat says where it works
	r.keys("ctrl+l")
	// The list's title, not the branch alone: the chat's header names it too.
	r.waitFor("Sessions · proj", "⎇ pi/")
	r.keys("D")
	r.waitFor("discard it first with X")
	if view := r.final(); strings.Contains(view, "Delete session") {
		t.Errorf("a confirmation was asked:\n%s", view)
	}
}

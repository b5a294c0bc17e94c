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
	r, dir := worktreeChat(t, 200)
	os.RemoveAll(dir)
	r.say("hello there")
	// The refusal and the message's return to the input are drawn by one
	// update; "worktree" alone was already on screen (the new worktree's
	// path in the notice), so the wait must name the refusal itself.
	r.waitFor("the worktree folder is gone")
	view := r.final()
	if !strings.Contains(view, "git") || !strings.Contains(view, "› hello there") {
		t.Errorf("no fix shown, or the message is lost:\n%s", view)
	}
}

// D on a worktree session says to discard it first, before asking anything.
func TestDeleteOfAWorktreeSessionSaysDiscardFirst(t *testing.T) {
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

package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// Sessions are named (/name, and r in the list), filtered by title and by
// content, counted in messages, and deleted only after a confirmation.
func TestSessionListRenameFilterDelete(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 30, echo, true)
	r.chat()
	r.say("alpha question about zebras")
	r.waitFor("answer to alpha question")
	r.command("/name First talk", "named \"First talk\"")
	r.keys("ctrl+l")
	r.waitFor("First talk", "2 messages")
	r.keys("n")
	r.waitFor("Type a message")
	r.say("beta question")
	r.waitFor("answer to beta question")
	r.sessions("beta question  2 messages", "First talk")
	// Rename from the list (the newest, beta, is first).
	r.keys("r")
	r.waitFor("Rename session")
	r.keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	r.tm.Type("Second talk")
	r.keys("enter")
	r.waitFor("Second talk  2 messages")
	// Filter by content: "zebras" is only in the first session's file body
	// (its title is "First talk").
	r.keys("/")
	r.tm.Type("zebras")
	r.waitFor("/ zebras", "First talk")
	view := r.final()
	if !strings.Contains(view, "First talk") || strings.Contains(view, "Second talk") {
		t.Errorf("the content filter shows:\n%s", view)
	}
}

// Deleting asks first and names the file; n keeps it, D removes it.
func TestSessionDeleteAsksFirst(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"n", "D"} {
		r := newKitRig(t, 140, 30, echo, true)
		r.chat()
		r.say("doomed")
		r.waitFor("answer to doomed")
		r.sessions("doomed  2 messages")
		files, _ := filepath.Glob(filepath.Join(r.home, ".pi", "agent", "sessions", "*", "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("files %v", files)
		}
		r.keys("D")
		r.waitFor("Delete session", "for pi as")
		r.keys(answer)
		if answer == "D" {
			r.waitFor("session deleted", "No sessions yet")
		}
		r.final()
		_, err := os.Stat(files[0])
		if gone := os.IsNotExist(err); gone != (answer == "D") {
			t.Errorf("answer %s: the file is gone: %v", answer, gone)
		}
	}
}

// /tree shows every branch, the current one marked, and continues from any
// entry; /fork starts a new session holding the branch up to an entry.
func TestTreeAndFork(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 36, echo, true)
	r.chat()
	r.say("one")
	r.waitFor("answer to one")
	r.say("two")
	r.waitFor("answer to two")
	// Branch before "two" and send another message there.
	r.command("/tree", "Tree · every branch")
	r.keys("up") // from the leaf (answer to two) to "two"
	r.keys("enter")
	r.waitFor("branched")
	r.keys("backspace", "backspace", "backspace") // the restored "two"
	r.tm.Type("three")
	r.keys("enter")
	r.waitFor("answer to three")
	// Both branches are in the tree: "two" off the branch, "three" on it.
	r.command("/tree", "Tree · every branch", "you: two", "you: three", "┬")
	r.keys("esc")
	// Fork from "one"'s answer: a new session with the first exchange.
	r.command("/fork", "Fork · a new session from which entry?")
	r.keys("up", "up", "up", "up", "up", "up") // to the top
	r.keys("down")                             // "answer to one"
	r.keys("enter")
	r.waitFor("forked: a new session")
	r.keys("ctrl+l")
	r.waitFor("one  2 messages", "one  6 messages")
	r.final()
}

// A key refused while the agent works says why, and the turn's end does
// not take that away before it is read: only the turn's own notices
// ("queued: …") are cleared when it ends.
func TestRefusalOutlivesTheTurnsEnd(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newKitRig(t, 140, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "partial words then more", Hold: hold}
	}, true)
	r.chat()
	r.say("slow")
	r.waitFor("partial")
	r.keys("ctrl+l")
	r.waitFor("the agent is working; press esc")
	close(hold)
	r.waitFor("tokens ") // the turn's end, drawn
	if view := r.final(); !strings.Contains(view, "the agent is working; press esc") {
		t.Errorf("the refusal is gone once the turn ended:\n%s", view)
	}
}

package ui

import (
	"testing"
)

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

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Over one `pi-tui rpc --engine pi`: a prompt, then the root AGENTS.md
// changes, then a prompt again. The idle pi is retired and a new one
// launched, both with reason instructions-changed, and the second
// prompt's model request carries the new text in pi's system prompt, not
// the old.
func TestRealPiRetiredWhenRootAgentsChanges(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, callsThenAnswer)
	r := startRPC(t, c, "--project", "mono", "--engine", "pi")
	launchedPi(t, r.prompt("hello there"))
	first := len(fake.Requests())

	writeFile(t, filepath.Join(root, "AGENTS.md"), "Root rule, revised: name things plainly.")
	evs := r.prompt("hello again")
	if !hasReason(evs, "runtime_retired", "instructions-changed") {
		t.Errorf("no runtime_retired with reason instructions-changed: %v", typed(evs, "runtime_retired"))
	}
	l := typed(evs, "runtime_launched")
	if len(l) != 1 || l[0]["reason"] != "instructions-changed" || l[0]["engine"] != "pi" {
		t.Errorf("runtime_launched = %v, want one on pi with reason instructions-changed", l)
	}
	reqs := fake.Requests()
	if len(reqs) <= first {
		t.Fatal("the second prompt did not reach the model")
	}
	sys := reqs[first].System
	if strings.Count(sys, "Root rule, revised: name things plainly.") != 1 || strings.Contains(sys, "keep functions short") {
		t.Errorf("the second prompt's system prompt does not carry the new root AGENTS.md (once, without the old):\n%s", sys)
	}
}

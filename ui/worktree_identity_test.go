package ui

import (
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// M on a worktree session when git has no name and email says what git
// needs and the two commands, as sessions merge does, and merges nothing.
func TestWorktreeMergeWithoutAGitIdentity(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	r := newKitRig(t, 100, 30, echo, true)
	root := filepath.Join(r.home, "proj")
	worktreetest.Repo(t, root, nil)
	// The kit gives git no identity; this keeps git from making one up
	// from the host's name.
	worktreetest.Git(t, root, "config", "user.useConfigOnly", "true")
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("w")
	r.waitFor("working on branch pi/", "Type a message")
	dirs, _ := filepath.Glob(filepath.Join(r.home, "data", "worktrees", "*", "*"))
	if len(dirs) != 1 {
		t.Fatalf("worktrees %v", dirs)
	}
	worktreetest.Write(t, dirs[0], "notes.txt", "from the worktree\n")
	r.say("look")
	r.waitFor("answer to look")
	r.sessions("⎇ pi/", "* 1 file")
	r.keys("M")
	r.waitFor("Merge pi/")
	r.keys("enter")
	frame := r.waitWhole("git needs your name and email to commit the merge", `git config --global user.name "Your Name"`,
		"git config --global user.email you@example.com", "nothing was merged and nothing is lost")
	assertFrame(t, frame, 100, 30)
	if st := worktreetest.Git(t, dirs[0], "status", "--porcelain"); st != " M notes.txt\n" {
		t.Errorf("the worktree's status after the refused merge = %q", st)
	}
	r.final()
}

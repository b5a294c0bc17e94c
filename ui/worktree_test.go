package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// worktreeChat starts pi-tui over a git project (with a git identity of
// its own: the kit gives git none) and opens a new session in a worktree
// with w from the session list; want are more texts its first frame
// shows. It returns the rig and the worktree's folder.
func worktreeChat(t *testing.T, width int, want ...string) (*kitRig, string) {
	t.Helper()
	worktreetest.Need(t)
	r := newKitRig(t, width, 30, echo, true)
	root := filepath.Join(r.home, "proj")
	worktreetest.Repo(t, root, nil)
	worktreetest.Git(t, root, "config", "user.name", "Test")
	worktreetest.Git(t, root, "config", "user.email", "test@example.com")
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("w")
	r.waitFor(append([]string{"working on branch pi/", "Type a message"}, want...)...)
	dirs, _ := filepath.Glob(filepath.Join(r.home, "data", "worktrees", "*", "*"))
	if len(dirs) != 1 {
		t.Fatalf("worktrees %v", dirs)
	}
	return r, dirs[0]
}

// w in the session list starts a session in a git worktree; the list shows
// its branch, uncommitted mark and diff stat; d shows the diff with line
// numbers; M merges (the dialog names the uncommitted changes) and X
// discards after a confirmation.
func TestWorktreeSessionFromTheList(t *testing.T) {
	t.Parallel()
	r, dir := worktreeChat(t, 150)
	root := filepath.Join(r.home, "proj")
	worktreetest.Write(t, dir, "notes.txt", "hello\nfrom the worktree\n")
	r.say("look")
	r.waitFor("answer to look")
	r.sessions("⎇ pi/", "* 1 file +1 -0")

	r.keys("d")
	r.waitFor("Diff · pi/", "2 +from the worktree")
	r.keys("esc")
	r.keys("M")
	r.waitFor("Merge pi/", "uncommitted changes in notes.txt are committed")
	r.keys("enter")
	r.waitFor("into main (fast-forward)")
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "hello\nfrom the worktree\n" {
		t.Errorf("main checkout after the merge: %q", b)
	}

	r.keys("X")
	r.waitFor("Discard worktree", "delete the branch?")
	r.keys("X")
	r.waitFor("discarded the worktree")
	view := r.final()
	if strings.Contains(view, "⎇") {
		t.Errorf("the list still shows a worktree:\n%s", view)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the worktree folder is still there: %v", err)
	}
}

// A new session in a worktree says, while it is empty, that the agent
// works in that worktree (its branch and folder, from ~), and that its
// file tools stay inside it, not inside the project folder.
func TestWorktreeSessionIntroNamesTheWorktree(t *testing.T) {
	t.Parallel()
	r, dir := worktreeChat(t, 150)
	rel, _ := filepath.Rel(r.home, dir)
	frame := r.waitWhole("The agent works in proj, on branch pi/"+filepath.Base(dir)+" in its own worktree (~/"+rel+
		"): its file tools stay inside that worktree, not the project folder;", "only once you approve them.")
	if strings.Contains(squeezed(frame), squeezed("stay inside the project folder")) {
		t.Errorf("a worktree session's introduction says the project folder:\n%s", frame)
	}
	r.final()
}

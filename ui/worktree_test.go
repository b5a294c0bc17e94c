package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
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

// plantedChat starts pi-tui over a git project with one session whose
// file binds it to a folder outside (planted or edited), and opens the
// project's session list. It returns the rig and the outside folder.
func plantedChat(t *testing.T) (*kitRig, string) {
	t.Helper()
	worktreetest.Need(t)
	r := newKitRig(t, 250, 30, echo, true)
	root := filepath.Join(r.home, "proj")
	worktreetest.Repo(t, root, nil)
	outside := filepath.Join(r.home, "outside")
	worktreetest.Write(t, outside, "secret.txt", "secret\n")
	ctx := context.Background()
	ps, err := r.m.opts.Host.Projects.List(ctx, false)
	if err != nil || len(ps) != 1 {
		t.Fatalf("projects %v, %v", ps, err)
	}
	s, err := r.m.opts.Host.Sessions.Create(ctx, ps[0].ID, "planted")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetWorktree(ctx, sessions.Worktree{Kind: sessions.KindWorktree, Root: outside, Dir: outside,
		Branch: "pi/" + worktree.ShortID(s.ID()), Base: "main", Main: root}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("⚠ worktree binding invalid", "its worktree binding is invalid, so it works in nothing (X unbinds it", "its folder")
	return r, outside
}

// The chat header says the binding is invalid, and a message is refused
// with the sentence before the model is called; the message is kept.
func TestPlantedWorktreeBindingRefusesMessages(t *testing.T) {
	t.Parallel()
	r, _ := plantedChat(t)
	r.keys("enter")
	r.waitFor("Session · proj ⚠ worktree binding invalid")
	r.say("read secret.txt")
	// The refusal, in the transcript, and the message back in the input
	// (they come by two ways, in either order).
	r.waitScreen("! the worktree binding of session", "› read secret.txt")
	r.final()
	if n := len(r.fake.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// X on the session unbinds it after a confirmation that says nothing is
// deleted; the outside folder is left as it was.
func TestPlantedWorktreeBindingIsUnbound(t *testing.T) {
	t.Parallel()
	r, outside := plantedChat(t)
	r.keys("X")
	r.waitFor("Unbind invalid worktree", "Nothing is deleted")
	r.keys("X")
	r.waitFor("unbound: the session works in the project's main checkout")
	r.keys("enter")
	r.waitFor("Session · proj")
	if view := r.final(); strings.Contains(view, "binding invalid") {
		t.Errorf("the unbound session still has an invalid binding:\n%s", view)
	}
	if _, err := os.Stat(filepath.Join(outside, "secret.txt")); err != nil {
		t.Errorf("the outside folder lost its file: %v", err)
	}
}

// A message sent in a session whose worktree folder was deleted by hand is
// not lost: the chat says the worktree is missing with the command that
// restores it, and the message comes back to the input.
func TestMessageInAMissingWorktreeIsKept(t *testing.T) {
	t.Parallel()
	// The background launch settles first: a launch still under way when
	// the folder goes fails with the same sentence, which would be read
	// as the message's refusal while the message is still being typed.
	r, dir := worktreeChat(t, 200, "runtime launched")
	os.RemoveAll(dir)
	r.say("hello there")
	// The refusal (the runtime's event) and the message's return to the
	// input (the prompt's result) come by two ways, in either order: the
	// wait is for one frame showing both, with the turn over.
	r.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, "the worktree folder is gone") && strings.Contains(f, "› hello there") &&
			!strings.Contains(f, "working…")
	})
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

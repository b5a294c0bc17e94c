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

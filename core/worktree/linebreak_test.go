package worktree_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// A project folder whose name holds a line break (a clone picks its
// folder's name) still gets worktree sessions, which verify and merge:
// git's answers about where the checkout is are not split by lines.
func TestWorktreeOfAFolderNamedWithALineBreak(t *testing.T) {
	t.Parallel()
	r := newHost(t)
	r.root = filepath.Join(r.h.Places.Home, "proj\nsecond line")
	worktreetest.Repo(t, r.root, map[string]string{"greet.txt": "hello\n"})
	r.add(r.root)
	ctx := context.Background()
	s, w := r.newSession()
	if w.Main != r.root || w.Base != "main" {
		t.Fatalf("worktree = %+v, want main checkout %q on main", w, r.root)
	}
	list, _ := r.sm.List(ctx, r.pid)
	if of := r.svc.Of(ctx, r.pid, list); len(of.Bound) != 1 || len(of.Invalid) != 0 {
		t.Fatalf("Of = %+v, want the session verified", of)
	}
	worktreetest.Write(t, w.Root, "greet.txt", "hello from the worktree\n")
	if _, _, err := r.svc.Merge(ctx, s, "Greet"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(r.root, "greet.txt")); got != "hello from the worktree\n" {
		t.Errorf("main checkout after the merge: %q", got)
	}
}

// A project in a folder of a checkout is found at its place in it, one
// rev-parse answering for both the top and the prefix, and a name with a
// line break, above or below the top, does not split that answer wrong.
func TestCheckoutTopAndPrefix(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	ctx := context.Background()
	g, err := worktree.Find(ctx, worktree.Options{Env: worktreetest.Env(t)})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	for _, c := range []struct{ top, sub string }{
		{"plain", ""},
		{"plain2", "web/app"},
		{"top\nbreak", "web"},
		{"plain3", "we\nb/app"},
		{"both\nbreaks", "we\nb"},
	} {
		top := filepath.Join(base, c.top)
		dir := filepath.Join(top, c.sub)
		worktreetest.Repo(t, top, map[string]string{filepath.Join(c.sub, "f.txt"): "f\n"})
		got, err := g.Checkout(ctx, dir)
		if err != nil {
			t.Fatalf("%q: %v", dir, err)
		}
		if got.Top != top || got.Prefix != filepath.ToSlash(c.sub) || got.Branch != "main" {
			t.Errorf("%q: checkout %+v, want top %q, prefix %q on main", dir, got, top, c.sub)
		}
	}
}

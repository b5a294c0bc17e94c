package worktree_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// A session's worktree is on a branch pi/… with its git dir under
// worktrees/: includes of the repository's config on those conditions
// name filters that do not run, not on create, status, commit or merge.
func TestConditionalIncludesNeverRun(t *testing.T) {
	t.Parallel()
	r := newHost(t)
	r.root = filepath.Join(r.h.Places.Home, "proj")
	worktreetest.Repo(t, r.root, map[string]string{
		".gitattributes": worktreetest.ConditionalAttributes,
		"a.cond":         "a\n", "b.nest": "b\n", "c.gd": "c\n",
	})
	marks := filepath.Join(t.TempDir(), "marks")
	worktreetest.HostileConditional(t, r.root, marks, "pi/**")
	r.add(r.root)
	ctx := context.Background()
	s, w := r.newSession()
	if got := read(t, filepath.Join(w.Root, "a.cond")); got != "a\n" {
		t.Errorf("a.cond in the new worktree: %q", got)
	}
	for _, f := range []string{"a.cond", "b.nest", "c.gd"} {
		worktreetest.Write(t, w.Root, f, "changed\n")
	}
	if _, err := r.svc.Diff(ctx, s); err != nil {
		t.Error(err)
	}
	if _, _, err := r.svc.Merge(ctx, s, "session work"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(r.root, "c.gd")); got != "changed\n" {
		t.Errorf("c.gd after the merge: %q", got)
	}
	worktreetest.NoMarks(t, marks)
}

package worktree_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree"
)

// Lookup only reads (ADR 0084): for a session whose index row is gone
// and whose project was relocated, it answers with the project's new
// checkout but writes nothing (not the store, not the session file, not
// git's record in the worktree). Reconcile, the writing path a launch or
// a merge takes, brings all three in line.
func TestLookupWritesNothingReconcileCatchesUp(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	st := r.h.Store
	row, found, err := st.GetKV(ctx, worktree.Namespace, s.ID())
	if err != nil || !found {
		t.Fatalf("no index row after NewSession: %v", err)
	}
	if err := st.CompareAndDeleteKV(ctx, worktree.Namespace, s.ID(), row.Value); err != nil {
		t.Fatal(err)
	}
	moved, s := r.relocate(s)

	file, gitFile := read(t, s.File()), read(t, filepath.Join(w.Dir, ".git"))
	stamp := st.Stamp()
	got, bound, err := r.svc.Lookup(ctx, s)
	if err != nil || !bound || got.Main != moved {
		t.Fatalf("Lookup: %+v, bound %v, %v; want bound with Main %s", got, bound, err, moved)
	}
	if st.Stamp() != stamp {
		t.Error("Lookup wrote to the store")
	}
	if read(t, s.File()) != file {
		t.Error("Lookup rewrote the session file")
	}
	if read(t, filepath.Join(w.Dir, ".git")) != gitFile {
		t.Error("Lookup repaired git's record of the worktree")
	}
	if _, found, _ := st.GetKV(ctx, worktree.Namespace, s.ID()); found {
		t.Error("Lookup wrote the index row")
	}

	if _, bound, err := r.svc.Reconcile(ctx, s); err != nil || !bound {
		t.Fatalf("Reconcile: bound %v, %v", bound, err)
	}
	if rec, _ := s.Worktree(); rec.Main != moved {
		t.Errorf("after Reconcile the session file names %q, want %q", rec.Main, moved)
	}
	if _, found, _ := st.GetKV(ctx, worktree.Namespace, s.ID()); !found {
		t.Error("Reconcile did not write the index row")
	}
	if read(t, filepath.Join(w.Dir, ".git")) == gitFile {
		t.Error("Reconcile did not tell git where the checkout went")
	}
	// In line now: a second Reconcile has nothing to write.
	stamp = st.Stamp()
	if _, _, err := r.svc.Reconcile(ctx, s); err != nil || st.Stamp() != stamp {
		t.Errorf("a Reconcile with everything in line wrote (%v)", err)
	}
}

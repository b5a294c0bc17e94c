package worktree

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/store"
)

// A discard and a launch's Reconcile write a session's index row at the
// same moment: neither is told the row "changed since it was read" (the
// discard did happen), and the row ends as the last of them says.
func TestIndexWritersAtOnceDoNotFail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "pi-tui.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := NewService(st, dir, Options{})
	active := sessions.Worktree{Kind: sessions.KindWorktree, Root: filepath.Join(dir, "wt"), Branch: "pi/x"}
	gone := active
	gone.Discarded = true
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				w := active
				if (i+j)%2 == 0 {
					w = gone
				}
				if err := s.index(context.Background(), "p1", "s1", w); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a writer of the index was refused: %v", err)
	}
}

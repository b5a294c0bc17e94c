package checkpoints

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// restart is the store a new process opens on the same data dir, and its
// recorder of the same session.
func (r *rig) restart() {
	r.t.Helper()
	if err := r.store.Close(); err != nil {
		r.t.Fatal(err)
	}
	r.store = Open(r.store.Dir(), Limits{})
	r.rec = r.store.Recorder("s1", r.file, r.root)
}

// A process whose calls all name their files (write, edit) neither reads
// nor saves the project's stat cache: on a large project the two cost
// what not walking saves (ADR 0087). A later process's walk still puts
// each change down to the call that made it, the write's file included,
// and a rewind brings every file back.
func TestAWriteLeavesTheStatCacheAloneAndLaterWalksStillSeeAll(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.bash("true") // the first walk: a stat cache is saved at Close
	r.restart()
	statePath := r.store.rootFor(r.root).file
	saved, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatalf("no stat cache after a walk: %v", err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(statePath, old, old)

	// A process that only writes.
	r.writeTool("a.txt", "A\n")
	r.restart()
	if got, _ := os.ReadFile(statePath); !bytes.Equal(got, saved) {
		t.Errorf("a process that only wrote rewrote the stat cache")
	}
	if fi, err := os.Stat(statePath); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("a process that only wrote touched the stat cache: %v", err)
	}

	// A process whose first walk comes after a write: the saved cache is
	// older than what both writes took in.
	r.writeTool("b.txt", "B\n")
	r.bash("echo more >> b.txt; echo more >> a.txt")
	got := summary(r.changes())
	want := []string{
		"1 modified a.txt +1 -1 active",
		"2 modified b.txt +1 -1 active",
		"3 modified a.txt +1 -0 active",
		"4 modified b.txt +1 -0 active",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{To: r.order[1]}); err != nil {
		t.Fatal(err)
	}
	if a, b := r.read("a.txt"), r.read("b.txt"); a != "a\n" || b != "b\n" {
		t.Errorf("after the rewind a.txt = %q, b.txt = %q", a, b)
	}
}

// A clean cut short (the process ended first, as a headless prompt on a
// large store does) claims its hour all the same: the next process does
// not start it again, and pay for it, within the hour (ADR 0087). An
// hour on, it is done.
func TestACleanCutShortIsNotStartedAgainWithinTheHour(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.writeTool("a.txt", "changed\n")
	if err := r.store.Remove("s1"); err != nil {
		t.Fatal(err)
	}
	ageAll(t, r.store.Dir())
	r.restart()
	cut, cancel := context.WithCancel(context.Background())
	cancel()
	r.store.Clean(cut)
	objects := func() int {
		n := 0
		filepath.WalkDir(filepath.Join(r.store.Dir(), "objects"), func(_ string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n
	}
	if n := objects(); n != 2 {
		t.Fatalf("the store holds %d contents before the clean, want the removed session's 2", n)
	}
	r.restart()
	if err := r.store.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := objects(); n != 2 {
		t.Errorf("a clean within the hour of one cut short ran again: %d contents left", n)
	}
	ageAll(t, r.store.Dir())
	if err := r.store.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := objects(); n != 0 {
		t.Errorf("an hour on the clean left %d contents nothing uses", n)
	}
}

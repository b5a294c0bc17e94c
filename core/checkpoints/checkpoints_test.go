package checkpoints

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBashChangesAreCaughtAndTheUsersAreNot(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "one\ntwo\n")
	r.write("b.txt", "gone soon\n")
	r.write("mine.txt", "the user's\n")
	r.bash("true") // the first look: everything is taken as it is
	r.write("mine.txt", "the user's, edited between calls\n")
	res := r.bash("printf 'one\\n2\\nthree\\n' > a.txt; rm b.txt; echo new > sub/c.txt 2>/dev/null || { mkdir sub; echo new > sub/c.txt; }")
	got := summary(r.changes())
	want := []string{"1 modified a.txt +2 -1 active", "2 deleted b.txt +0 -1 active", "3 added sub/c.txt +1 -0 active"}
	if !slices.Equal(got, want) {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Changes) != 3 || res.Changes[0].Path != "a.txt" || !res.Changes[0].Kept || res.Note != "" {
		t.Fatalf("the call's result: %+v", res)
	}
}

func TestUndoAndRedoOfABashTurn(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "one\n")
	r.write("b.txt", "bee\n")
	r.bash("echo two >> a.txt; rm b.txt; echo c > c.txt; ln -s a.txt link")
	res, err := r.store.Undo(context.Background(), r.info(), Undo{To: r.order[0]})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 4 || r.read("a.txt") != "one\n" || r.read("b.txt") != "bee\n" {
		t.Fatalf("undo: %+v; a=%q b=%q", res, r.read("a.txt"), r.read("b.txt"))
	}
	for _, gone := range []string{"c.txt", "link"} {
		if _, err := os.Lstat(filepath.Join(r.root, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s is still there after the undo: %v", gone, err)
		}
	}
	for _, c := range r.changes() {
		if c.State != StateUndone {
			t.Fatalf("change %d is %s after the undo", c.N, c.State)
		}
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1, 2, 3, 4}, Redo: true}); err != nil {
		t.Fatal(err)
	}
	if r.read("a.txt") != "one\ntwo\n" || r.read("c.txt") != "c\n" {
		t.Fatalf("redo: a=%q c=%q", r.read("a.txt"), r.read("c.txt"))
	}
	if target, err := os.Readlink(filepath.Join(r.root, "link")); err != nil || target != "a.txt" {
		t.Fatalf("redo of the link: %q %v", target, err)
	}
	// The next call does not take the undo and redo for its own doing.
	if res := r.bash("true"); len(res.Changes) != 0 {
		t.Fatalf("a call after the redo: %+v", res.Changes)
	}
}

func TestUndoRefusesWhenAFileChangedSinceAndChangesNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.write("b.txt", "b\n")
	r.bash("echo A > a.txt; echo B > b.txt")
	r.write("b.txt", "the user's later work\n")
	_, err := r.store.Undo(context.Background(), r.info(), Undo{To: r.order[0]})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "b.txt" || !ce.Forceable() {
		t.Fatalf("undo over later work: %v", err)
	}
	if r.read("a.txt") != "A\n" || r.read("b.txt") != "the user's later work\n" {
		t.Fatalf("a refused undo wrote: a=%q b=%q", r.read("a.txt"), r.read("b.txt"))
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{To: r.order[0], Force: true}); err != nil {
		t.Fatal(err)
	}
	if r.read("a.txt") != "a\n" || r.read("b.txt") != "b\n" {
		t.Fatalf("forced undo: a=%q b=%q", r.read("a.txt"), r.read("b.txt"))
	}
}

func TestUndoOfAnEarlierChangeWithALaterOneInTheWay(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "v0\n")
	r.writeTool("a.txt", "v1\n")
	r.writeTool("a.txt", "v2\n")
	_, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Forceable() || !strings.Contains(err.Error(), "change 2") {
		t.Fatalf("undo of change 1 under change 2: %v", err)
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}, Force: true}); err == nil {
		t.Fatal("force got past a later change in the way")
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{2}}); err != nil {
		t.Fatal(err)
	}
	if r.read("a.txt") != "v1\n" {
		t.Fatalf("after undoing change 2: %q", r.read("a.txt"))
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if r.read("a.txt") != "v0\n" {
		t.Fatalf("after undoing change 1: %q", r.read("a.txt"))
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}}); err == nil || !strings.Contains(err.Error(), "undone already") {
		t.Fatalf("undoing an undone change: %v", err)
	}
}

func TestUndoNeverWritesThroughALinkOutOfTheProject(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	outside := filepath.Join(filepath.Dir(r.root), "outside.txt")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.write("a.txt", "a\n")
	r.writeTool("a.txt", "A\n")
	os.Remove(filepath.Join(r.root, "a.txt"))
	if err := os.Symlink(outside, filepath.Join(r.root, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}}); err == nil {
		t.Fatal("undo wrote over a link put where the file was")
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}, Force: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
		t.Fatalf("the file outside the project was written: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(r.root, "a.txt")); err != nil || !fi.Mode().IsRegular() || r.read("a.txt") != "a\n" {
		t.Fatalf("the forced undo should replace the link by the file: %v", err)
	}
}

func TestIgnoredFilesAreLeftOut(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	if err := os.Mkdir(filepath.Join(r.root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.write(".git/info/exclude", "secret.txt\n")
	r.write(".gitignore", "build/\n*.log\n")
	r.write("build/out.bin", "x")
	r.bash("true")
	res := r.bash("echo y > build/out.bin; echo log > run.log; echo s > secret.txt; echo kept > kept.txt; echo obj > .git/x")
	if got := summary(r.changes()); !slices.Equal(got, []string{"1 added kept.txt +1 -0 active"}) {
		t.Fatalf("changes: %v (result %+v)", got, res)
	}
}

func TestAWorktreeUsesItsRepositorysExcludes(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	common := filepath.Join(filepath.Dir(r.root), "main.git")
	gitdir := filepath.Join(common, "worktrees", "wt")
	for _, d := range []string{gitdir, filepath.Join(common, "info")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(common, "info", "exclude"), []byte("*.tmp\n"), 0o644)
	r.write(".git", "gitdir: "+gitdir+"\n")
	r.bash("true")
	r.bash("echo t > x.tmp; echo k > k.txt")
	if got := summary(r.changes()); !slices.Equal(got, []string{"1 added k.txt +1 -0 active"}) {
		t.Fatalf("changes: %v", got)
	}
}

func TestLargeAndBinaryFiles(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{MaxFileBytes: 1024, MaxSessionBytes: 1 << 20, MaxBaseBytes: 1 << 20, MaxFiles: 1000})
	r.write("big.txt", strings.Repeat("x", 2000))
	r.bash("true")
	res := r.bash("printf 'y' >> big.txt; printf 'a\\0b' > bin.dat")
	cs := r.changes()
	if len(cs) != 2 || cs[0].Path != "big.txt" || cs[0].Kept || !cs[1].Binary || !cs[1].Kept {
		t.Fatalf("changes: %+v", cs)
	}
	if !strings.Contains(res.Note, "over 1 KiB") {
		t.Fatalf("the note should say a file was over the bound: %q", res.Note)
	}
	_, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{1}, Force: true})
	if err == nil || !strings.Contains(err.Error(), "not kept") {
		t.Fatalf("undo of a file whose content was not kept: %v", err)
	}
	d, err := r.store.Diff(context.Background(), "s1", 2)
	if err != nil || !strings.Contains(d, "Binary file bin.dat") {
		t.Fatalf("diff of a binary file: %q %v", d, err)
	}
}

func TestTheSessionBoundKeepsHashesOnly(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{MaxFileBytes: 1 << 20, MaxSessionBytes: 100, MaxBaseBytes: 1 << 20, MaxFiles: 1000})
	r.write("a.txt", "a\n")
	res := r.writeTool("a.txt", strings.Repeat("long line\n", 20))
	if len(res.Changes) != 1 || res.Changes[0].Kept || !strings.Contains(res.Note, "full") {
		t.Fatalf("past the session bound: %+v", res)
	}
}

func TestDiffIsUnified(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.go", "package a\n\nfunc A() {}\n")
	r.writeTool("a.go", "package a\n\nfunc A() { println() }\n")
	d, err := r.store.Diff(context.Background(), "s1", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- a/a.go", "+++ b/a.go", "-func A() {}", "+func A() { println() }"} {
		if !strings.Contains(d, want) {
			t.Fatalf("diff lacks %q:\n%s", want, d)
		}
	}
}

func TestEvidenceSurvivesARestartAndTheStatCacheIsKept(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.bash("echo b > a.txt")
	if err := r.store.Close(); err != nil {
		t.Fatal(err)
	}
	st := Open(r.store.Dir(), Limits{})
	cs, err := st.Changes(context.Background(), r.info())
	if err != nil || len(cs) != 1 || cs[0].Path != "a.txt" {
		t.Fatalf("after a restart: %+v %v", cs, err)
	}
	rs := st.rootFor(r.root)
	rs.mu.Lock()
	rs.load()
	got, ok := rs.files["a.txt"]
	rs.mu.Unlock()
	if !ok || got.hash != hashOf([]byte("b\n")) {
		t.Fatalf("the stat cache after a restart: %+v %v", got, ok)
	}
	// A new recorder after the restart numbers on.
	r.store, r.rec = st, st.Recorder("s1", r.file, r.root)
	r.bash("echo c > a.txt")
	if cs := r.changes(); len(cs) != 2 || cs[1].N != 2 {
		t.Fatalf("numbering after a restart: %+v", cs)
	}
}

func TestAForkShowsItsParentsChangesAndCannotUndoThem(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.bash("echo b > a.txt")
	r.bash("echo c > c.txt")
	fork := SessionInfo{ID: "s2", Order: r.order[:1], Ancestors: []string{"s1"}}
	cs, err := r.store.Changes(context.Background(), fork)
	if err != nil || len(cs) != 1 || cs[0].State != StateParent || cs[0].Session != "s1" || cs[0].Path != "a.txt" {
		t.Fatalf("the fork's changes: %+v %v", cs, err)
	}
	if _, err := r.store.Undo(context.Background(), fork, Undo{Changes: []int{1}}); err == nil || !strings.Contains(err.Error(), "parent") {
		t.Fatalf("a fork undoing its parent's change: %v", err)
	}
	if r.read("a.txt") != "b\n" {
		t.Fatal("the fork's refused undo wrote")
	}
}

// A change number the session does not have is said as such: a session
// that is not a fork is never told it is one, and is told what it has.
func TestUndoOfAChangeThatIsNotThereSaysWhatThereIs(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	_, err := r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{9}})
	if err == nil || strings.Contains(err.Error(), "fork") || !strings.Contains(err.Error(), "has no change 9: it has made no file changes") {
		t.Fatalf("undo of change 9 in a session with none: %v", err)
	}
	r.write("a.txt", "a\n")
	r.bash("echo b > a.txt; echo c > c.txt")
	_, err = r.store.Undo(context.Background(), r.info(), Undo{Changes: []int{9}})
	if err == nil || strings.Contains(err.Error(), "fork") || !strings.Contains(err.Error(), "has no change 9: its changes are numbered 1 to 2") {
		t.Fatalf("undo of change 9 in a session with two: %v", err)
	}
}

func TestRemoveAndClean(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.writeTool("a.txt", "changed\n")
	other := r.store.Recorder("gone", filepath.Join(t.TempDir(), "missing.jsonl"), r.root)
	m := other.Before(context.Background(), Call{ToolCallID: "c", Tool: "write", Entry: "x", Paths: []string{filepath.Join(r.root, "b.txt")}})
	r.write("b.txt", "only the gone session's\n")
	m.After(context.Background())
	if err := r.store.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.store.sessionDir("gone")); errors.Is(err, os.ErrNotExist) {
		t.Fatal("a journal younger than the grace age was removed")
	}
	ageAll(t, r.store.Dir())
	// The stat cache in memory still refers to b.txt's content: a store
	// of a new process does not.
	if err := r.store.Close(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(r.root, "b.txt"))
	fresh := Open(r.store.Dir(), Limits{})
	ageAll(t, r.store.Dir())
	if err := fresh.Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh.sessionDir("gone")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the journal of a session whose file is gone stayed")
	}
	if _, err := os.Stat(fresh.sessionDir("s1")); err != nil {
		t.Fatal("a live session's journal was removed")
	}
	if d, err := fresh.Diff(context.Background(), "s1", 1); err != nil || !strings.Contains(d, "+changed") {
		t.Fatalf("a live session's contents were removed: %q %v", d, err)
	}
	if err := fresh.Remove("s1"); err != nil {
		t.Fatal(err)
	}
	if cs, _ := fresh.Changes(context.Background(), r.info()); len(cs) != 0 {
		t.Fatalf("changes after Remove: %+v", cs)
	}
}

// pi runs a message's calls at once: a write and a bash call overlap.
// Each change is put down to one call, never to both.
func TestOverlappingCallsShareNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("a.txt", "a\n")
	r.bash("true")
	ew, eb := r.entry(), r.entry()
	mw := r.rec.Before(context.Background(), Call{ToolCallID: "w", Tool: "write", Entry: ew, Paths: []string{filepath.Join(r.root, "a.txt")}})
	mb := r.rec.Before(context.Background(), Call{ToolCallID: "b", Tool: "bash", Entry: eb})
	r.write("a.txt", "written\n")
	r.write("b.txt", "by bash\n")
	rw := mw.After(context.Background())
	rb := mb.After(context.Background())
	if len(rw.Changes) != 1 || rw.Changes[0].Path != "a.txt" || len(rb.Changes) != 1 || rb.Changes[0].Path != "b.txt" {
		t.Fatalf("write: %+v\nbash: %+v", rw.Changes, rb.Changes)
	}
}

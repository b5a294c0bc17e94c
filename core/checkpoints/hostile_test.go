package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A CLI prompt beside the UI records changes of the same session: the
// numbers stay unique, so every change is listed and can be undone.
func TestTwoProcessesNeverShareAChangeNumber(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.bash("true")
	r.writeTool("a.txt", "one\n") // this process: change 1
	other := Open(r.store.Dir(), Limits{}).Recorder("s1", r.file, r.root)
	m := other.Before(context.Background(), Call{Tool: "write", Entry: r.entry(), Paths: []string{filepath.Join(r.root, "b.txt")}})
	r.write("b.txt", "b\n")
	if got := m.After(context.Background()).Changes; len(got) != 1 || got[0].N != 2 {
		t.Fatalf("the other process's change: %+v", got)
	}
	if got := r.writeTool("c.txt", "c\n").Changes; len(got) != 1 || got[0].N != 3 {
		t.Fatalf("this process's next change: %+v, want number 3", got)
	}
	if got := summary(r.changes()); len(got) != 3 {
		t.Fatalf("listed: %v", got)
	}
}

// Agent A→B, the user's edit B→C, agent C→D: going back past both agent
// changes would lose the user's C, so it is refused (forceable).
func TestARewindDoesNotLoseAnEditBetweenTwoChanges(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("f.txt", "A\n")
	r.writeTool("f.txt", "B\n")
	first := r.order[0]
	r.write("f.txt", "USER WORK\n")
	r.writeTool("f.txt", "USER WORK\nD\n")
	_, err := r.store.Undo(context.Background(), r.info(), Undo{To: first})
	var ce *ConflictError
	if !errors.As(err, &ce) || !ce.Forceable() || !strings.Contains(err.Error(), "edited outside the agent between changes 1 and 2") {
		t.Fatalf("rewind past the user's edit: %v", err)
	}
	if got := r.read("f.txt"); got != "USER WORK\nD\n" {
		t.Fatalf("a refused rewind wrote: %q", got)
	}
}

// The agent replaced a file by a folder: the file's deletion is recorded,
// and the undo takes the folder away and brings the file back.
func TestAFileTurnedIntoAFolderComesBack(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.write("f", "file\n")
	r.bash("true")
	r.bash("rm f && mkdir f && echo x > f/x")
	if got := summary(r.changes()); len(got) != 2 || !strings.Contains(got[0], "deleted f ") || !strings.Contains(got[1], "added f/x") {
		t.Fatalf("changes: %v", got)
	}
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{To: r.order[1]}); err != nil {
		t.Fatal(err)
	}
	if got := r.read("f"); got != "file\n" {
		t.Fatalf("after the undo f = %q", got)
	}
}

// A name that is not UTF-8 comes back under its own bytes.
func TestANonUTF8NameIsRestoredExactly(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	name := "a\xffb.txt"
	r.write(name, "precious\n")
	r.bash("true")
	r.bash("rm a*b.txt")
	if _, err := r.store.Undo(context.Background(), r.info(), Undo{To: r.order[1]}); err != nil {
		t.Fatal(err)
	}
	if got := r.read(name); got != "precious\n" {
		t.Fatalf("the file under its own name: %q", got)
	}
	ents, _ := os.ReadDir(r.root)
	if len(ents) != 1 {
		t.Fatalf("the undo wrote another name too: %v", ents)
	}
}

// A half-written last line (a crash) does not swallow the next record.
func TestATornJournalLineLosesNothingAfterIt(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	r.writeTool("a.txt", "one\n")
	f, err := os.OpenFile(r.store.journalFor("s1").path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"change","n":2,"path":"half`)
	f.Close()
	r.store = Open(r.store.Dir(), Limits{}) // the next process
	r.rec = r.store.Recorder("s1", r.file, r.root)
	res := r.writeTool("b.txt", "two\n")
	if got := summary(r.changes()); len(got) != 2 || !strings.Contains(got[1], "b.txt") {
		t.Fatalf("listed after a torn line: %v (recorded %+v)", got, res.Changes)
	}
}

// A folder swapped for a link out of the project while walks run is
// never listed: no name from outside reaches the journal.
func TestAWalkNeverListsThroughASwappedLink(t *testing.T) {
	t.Parallel()
	r := newRig(t, Limits{})
	out := filepath.Join(filepath.Dir(r.root), "outside")
	os.MkdirAll(out, 0o755)
	for i := range 20 {
		os.WriteFile(filepath.Join(out, fmt.Sprintf("SECRET-%d", i)), []byte("s"), 0o644)
	}
	r.write("sub/a", "a\n")
	r.bash("true")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	swap := exec.CommandContext(ctx, "bash", "-c", `while :; do mv sub sub.real; ln -s ../outside sub; mv sub sub.link; mv sub.real sub; rm sub.link; done`)
	swap.Dir = r.root
	if err := swap.Start(); err != nil {
		t.Fatal(err)
	}
	defer swap.Wait()
	for range 100 {
		res := r.rec.Before(context.Background(), Call{Tool: "bash", Entry: "x"}).After(context.Background())
		for _, c := range res.Changes {
			if strings.Contains(c.Path, "SECRET") {
				cancel()
				t.Fatalf("a walk listed %s from outside the project", c.Path)
			}
		}
	}
	cancel()
}

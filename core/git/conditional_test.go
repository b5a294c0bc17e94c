package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// conditionalRepo is a repository on main whose config includes, on a
// branch matching pi/** and in linked worktrees only, files naming
// filters that leave a mark; its files use them.
func conditionalRepo(t *testing.T) (dir, marks string) {
	t.Helper()
	worktreetest.Need(t)
	base := t.TempDir()
	dir, marks = filepath.Join(base, "repo"), filepath.Join(base, "marks")
	worktreetest.Repo(t, dir, map[string]string{
		".gitattributes": worktreetest.ConditionalAttributes,
		"a.cond":         "a\n", "b.nest": "b\n", "c.gd": "c\n",
	})
	worktreetest.HostileConditional(t, dir, marks, "pi/**")
	return dir, marks
}

// git worktree add checks out a branch pi/… in a git dir under
// worktrees/: conditions that did not hold in the main checkout hold in
// the child git that checks the files out. Their filters do not run.
func TestConditionalIncludesDoNotRunOnWorktreeAdd(t *testing.T) {
	dir, marks := conditionalRepo(t)
	g := find(t, nil)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, g, dir, "worktree", "add", "--quiet", "-b", "pi/x", wt, "main")
	if got, err := os.ReadFile(filepath.Join(wt, "a.cond")); err != nil || string(got) != "a\n" {
		t.Errorf("a.cond in the new worktree: %q %v", got, err)
	}
	worktreetest.Write(t, wt, "a.cond", "changed\n")
	worktreetest.Write(t, wt, "c.gd", "changed\n")
	run(t, g, wt, "add", "--all")
	run(t, g, wt, "status", "--porcelain")
	worktreetest.NoMarks(t, marks)
}

// The overrides read on main hold after HEAD moves to a branch an
// onbranch: include names, though no config file changed: a merge there
// checks files out without the included filters.
func TestOverridesHoldWhenTheBranchChanges(t *testing.T) {
	dir, marks := conditionalRepo(t)
	g := find(t, nil)
	worktreetest.Git(t, dir, "checkout", "-q", "-b", "other")
	worktreetest.Write(t, dir, "d.cond", "d\n")
	worktreetest.Write(t, dir, "e.nest", "e\n")
	worktreetest.Git(t, dir, "add", "-A")
	worktreetest.Git(t, dir, "commit", "-qm", "other")
	worktreetest.Git(t, dir, "checkout", "-q", "main")
	run(t, g, dir, "status", "--porcelain") // the guard, read on main
	worktreetest.Git(t, dir, "checkout", "-q", "-b", "pi/y")
	run(t, g, dir, "merge", "--quiet", "other")
	if got, err := os.ReadFile(filepath.Join(dir, "d.cond")); err != nil || string(got) != "d\n" {
		t.Errorf("d.cond after the merge: %q %v", got, err)
	}
	worktreetest.NoMarks(t, marks)
}

// Includes that include each other are read once; a chain deeper than
// git's own bound stops pi-tui's git there with a sentence.
func TestIncludesLoopAndDepth(t *testing.T) {
	worktreetest.Need(t)
	dir := filepath.Join(t.TempDir(), "repo")
	worktreetest.Repo(t, dir, map[string]string{"a": "a\n"})
	g := find(t, nil)
	gd := filepath.Join(dir, ".git")
	worktreetest.Git(t, dir, "config", "includeIf.onbranch:nothing.path", "loop1.cfg")
	os.WriteFile(filepath.Join(gd, "loop1.cfg"), []byte("[include]\n\tpath = loop2.cfg\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "loop2.cfg"), []byte("[include]\n\tpath = loop1.cfg\n[filter \"x\"]\n\tsmudge = evil\n"), 0o644)
	ws, err := g.Withheld(context.Background(), dir)
	if err != nil || len(ws) != 1 || ws[0].Key != "filter.x.smudge" {
		t.Fatalf("withheld with a loop: %v %v", ws, err)
	}
	worktreetest.Git(t, dir, "config", "includeIf.onbranch:nothing.path", "deep0.cfg")
	for i := range maxIncludeDepth + 1 {
		os.WriteFile(filepath.Join(gd, fmt.Sprintf("deep%d.cfg", i)), []byte(fmt.Sprintf("[include]\n\tpath = deep%d.cfg\n", i+1)), 0o644)
	}
	if _, err := g.Run(context.Background(), dir, "status"); err == nil || !strings.Contains(err.Error(), "nests includes more than") {
		t.Errorf("status under too deep includes: %v", err)
	}
}

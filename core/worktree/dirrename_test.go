package worktree_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// When main renamed a folder the branch adds a file to, git's
// directory-rename detection would move the branch's file into the new
// folder: over an ignored file there (merge.directoryRenames=true), or,
// by default, as a conflict whose abort deletes that file. The merge
// puts the file where the branch did, and the ignored file stays.
func TestMergeKeepsAnIgnoredFileInARenamedFolder(t *testing.T) {
	t.Parallel()
	for _, setting := range []string{"", "true", "conflict"} {
		t.Run("directoryRenames="+setting, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{"src/a.go": "package a\n"})
			if setting != "" {
				worktreetest.Git(t, r.root, "config", "merge.directoryRenames", setting)
			}
			ctx := context.Background()
			s, w := r.newSession()
			worktreetest.Write(t, w.Root, "src/new.go", "package a // the branch's\n")
			worktreetest.Git(t, r.root, "mv", "src", "lib")
			worktreetest.Write(t, r.root, ".gitignore", "lib/new.go\n")
			worktreetest.Git(t, r.root, "add", "-A")
			worktreetest.Git(t, r.root, "commit", "-qm", "src is lib now")
			worktreetest.Write(t, r.root, "lib/new.go", "PRECIOUS\n")
			_, _, err := r.svc.Merge(ctx, s, "new file")
			var ie *worktree.IgnoredMainError
			if err != nil && !errors.As(err, &ie) {
				t.Errorf("merge: %v", err)
			}
			if got := read(t, filepath.Join(r.root, "lib/new.go")); got != "PRECIOUS\n" {
				t.Errorf("the ignored lib/new.go is now %q", got)
			}
			if err == nil {
				if _, serr := os.Stat(filepath.Join(r.root, "src/new.go")); serr != nil {
					t.Errorf("the branch's file is not where the branch put it: %v", serr)
				}
			}
		})
	}
}

// A file the branch adds where main now has a folder conflicts, and git
// writes the branch's file beside it as d~refs_heads_<branch>, a path the branch
// never named: an ignored file there refuses the merge (its abort would
// delete the file).
func TestMergeKeepsAnIgnoredFileAConflictWrites(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a": "a\n"})
	if !worktreeGitAtLeast(t, r, 2, 38) {
		t.Skip("git merge-tree --write-tree needs git 2.38")
	}
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "d", "the branch's file\n")
	worktreetest.Write(t, r.root, "d/f", "main's folder\n")
	worktreetest.Write(t, r.root, ".gitignore", "d~*\n")
	worktreetest.Git(t, r.root, "add", "-A")
	worktreetest.Git(t, r.root, "commit", "-qm", "d is a folder")
	aside := "d~" + strings.ReplaceAll("refs/heads/"+w.Branch, "/", "_")
	worktreetest.Write(t, r.root, aside, "PRECIOUS\n")
	_, _, err := r.svc.Merge(context.Background(), s, "d")
	var ie *worktree.IgnoredMainError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), aside) {
		t.Errorf("merge: %v", err)
	}
	if got := read(t, filepath.Join(r.root, aside)); got != "PRECIOUS\n" {
		t.Errorf("the ignored %s is now %q", aside, got)
	}
}

func worktreeGitAtLeast(t *testing.T, r *rig, major, minor int) bool {
	t.Helper()
	var ma, mi int
	fmt.Sscanf(strings.TrimPrefix(worktreetest.Git(t, r.root, "version"), "git version "), "%d.%d", &ma, &mi)
	return ma > major || ma == major && mi >= minor
}

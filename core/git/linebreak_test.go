package git

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// A repository below a folder whose name holds a line break, or whose
// own folder's name ends with one, is located as any other: its config is stamped where it
// is, so the programs a config written after a first call names are
// withheld on the next, at the checkout's top and below it.
func TestARepositoryPathWithALineBreak(t *testing.T) {
	for name, folder := range map[string]string{"above": "new\nline/repo", "at-the-end": "repo\n"} {
		for _, in := range []string{".", "sub/deeper"} {
			t.Run(name+"/"+in, func(t *testing.T) {
				worktreetest.Need(t)
				base := t.TempDir()
				dir, marks := filepath.Join(base, folder), filepath.Join(base, "marks")
				worktreetest.Repo(t, dir, map[string]string{
					".gitattributes": worktreetest.HostileAttributes,
					"a.txt":          "one\n", "b.inc": "inc\n", "c.wt": "wt\n", "sub/deeper/d": "d\n",
				})
				at := filepath.Join(dir, in)
				g := find(t, nil)
				run(t, g, at, "status", "--porcelain")
				worktreetest.Hostile(t, dir, marks)
				for _, f := range []string{"a.txt", "b.inc", "c.wt"} {
					worktreetest.Write(t, dir, f, "changed\n")
				}
				run(t, g, at, "status", "--porcelain")
				run(t, g, at, "diff")
				run(t, g, at, "add", "--all")
				for _, f := range []string{"a.txt", "b.inc", "c.wt"} {
					os.Remove(filepath.Join(dir, f))
				}
				run(t, g, at, "checkout", "--", ":/")
				worktreetest.NoMarks(t, marks)
			})
		}
	}
}

package toolpolicy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// Whichever of the five pieces comes last, its write asks: in each of the
// 120 orders, written with every approval granted, the last write asks;
// written with every asking write denied, the five are never all there.
// In the orders where each piece in turn comes last, git is asked after
// every write: a write after which git sees a repository always asked,
// and one that asked while git sees none is the HEAD-beside-commondir
// pair (ADR 0060).
func TestAssembledGitDirectoryAsksWhicheverPieceComesLast(t *testing.T) {
	worktreetest.Need(t)
	base, marks := guardtest.TempRoot(t), guardtest.TempRoot(t)
	n := 0
	var orders [][]int
	var permute func(prefix []int, rest []int)
	permute = func(prefix, rest []int) {
		if len(rest) == 0 {
			orders = append(orders, append([]int(nil), prefix...))
			return
		}
		for i := range rest {
			next := append(append([]int(nil), rest[:i]...), rest[i+1:]...)
			permute(append(prefix, rest[i]), next)
		}
	}
	permute(nil, []int{0, 1, 2, 3, 4})
	if len(orders) != 120 {
		t.Fatalf("%d orders", len(orders))
	}
	for _, order := range orders {
		n++
		granted, denied := filepath.Join(base, fmt.Sprint("g", n)), filepath.Join(base, fmt.Sprint("d", n))
		pieces := guardtest.AssembledRepo(granted, marks)
		var why string
		for _, i := range order {
			why = RunOnUse(granted, filepath.Join(granted, filepath.FromSlash(pieces[i].Path)))
			guardtest.WritePiece(t, granted, pieces[i])
		}
		if why == "" {
			t.Errorf("order %v: the last write, %s, does not ask", order, pieces[order[4]].Path)
		}
		// git sees a repository once the four pieces but config are
		// there: denied, they never all are.
		pieces = guardtest.AssembledRepo(denied, marks)
		written := map[int]bool{}
		for _, i := range order {
			if RunOnUse(denied, filepath.Join(denied, filepath.FromSlash(pieces[i].Path))) == "" {
				guardtest.WritePiece(t, denied, pieces[i])
				written[i] = true
			}
		}
		if written[1] && written[2] && written[3] && written[4] {
			t.Errorf("order %v: objects/, refs/, HEAD and commondir were all written without asking", order)
		}
	}

	repro := []int{0, 1, 2, 3, 4}
	for last := range 5 {
		order := append(append([]int(nil), repro[last+1:]...), repro[:last+1]...)
		root := filepath.Join(base, fmt.Sprint("git", last))
		newrepo := filepath.Join(root, "newrepo") // made first, for git to run in
		os.MkdirAll(newrepo, 0o755)
		pieces := guardtest.AssembledRepo(root, marks)
		for _, i := range order {
			why := RunOnUse(root, filepath.Join(root, filepath.FromSlash(pieces[i].Path)))
			guardtest.WritePiece(t, root, pieces[i])
			sees := guardtest.GitSees(t, newrepo)
			pair := i == 3 || i == 4 // newrepo/HEAD, newrepo/commondir
			switch {
			case sees && why == "":
				t.Errorf("order %v: after %s git sees a repository in newrepo/, and the write did not ask", order, pieces[i].Path)
			case !sees && why != "" && !pair:
				t.Errorf("order %v: %s asked, and git sees no repository after it: %s", order, pieces[i].Path, why)
			}
		}
		if !guardtest.GitSees(t, newrepo) {
			t.Errorf("order %v: git sees no repository in newrepo/ once all is written", order)
		}
	}
	worktreetest.NoMarks(t, marks)
}

// Other shapes git takes for a git directory, each checked with git
// after the write: the write asks exactly when git sees one (or for the
// HEAD-beside-commondir pair, which asks before the common dir is
// complete).
// gitPiece is a file or folder a case starts with.
type gitPiece struct{ path, content string }

func TestGitDirectoryShapesAsGitReadsThem(t *testing.T) {
	worktreetest.Need(t)
	const head = "ref: refs/heads/main\n"
	cases := []struct {
		name   string
		have   []gitPiece // a path ending in / is a folder; "->" makes a link
		write  string
		gitDir string // the folder git is run in after the write
		asks   bool
	}{
		{"objects/ is a link to a folder", []gitPiece{{"v/HEAD", head}, {"v/refs/", ""}, {"store/", ""}, {"v/objects", "->../store"}},
			"v/config", "v", true},
		{"objects is an executable file", []gitPiece{{"v/HEAD", head}, {"v/refs/", ""}, {"v/objects", "#!x"}},
			"v/config", "v", true},
		{"a detached HEAD", []gitPiece{{"v/HEAD", strings.Repeat("ab", 20) + "\n"}, {"v/objects/", ""}, {"v/refs/", ""}},
			"v/config", "v", true},
		{"an absolute commondir, config last", []gitPiece{{"newrepo/HEAD", head}, {"newrepo/commondir", "ABS/bare2\n"}, {"bare2/objects/", ""}, {"bare2/refs/", ""}},
			"bare2/config", "newrepo", true},
		{"git's own layout: the git dir inside the common dir", []gitPiece{{"store/objects/", ""}, {"store/refs/", ""}, {"store/worktrees/w1/HEAD", head}, {"store/worktrees/w1/commondir", "../..\n"}},
			"store/config", "store/worktrees/w1", true},
		{"a hook in the common dir", []gitPiece{{"newrepo/HEAD", head}, {"newrepo/commondir", "../bare2\n"}, {"bare2/objects/", ""}, {"bare2/refs/", ""}},
			"bare2/hooks/pre-commit", "newrepo", true},
		{"the git dir's own config.worktree", []gitPiece{{"newrepo/HEAD", head}, {"newrepo/commondir", "../bare2\n"}, {"bare2/objects/", ""}, {"bare2/refs/", ""}},
			"newrepo/config.worktree", "newrepo", true},
		{"the project folder as the common dir", []gitPiece{{"objects/", ""}, {"refs/", ""}, {"sub/HEAD", head}, {"sub/commondir", "..\n"}},
			"config", "sub", true},
		{"a HEAD beside a commondir naming an incomplete folder (the pair)", []gitPiece{{"x/y/newrepo/commondir", "../../../bare2\n"}, {"bare2/objects/", ""}},
			"x/y/newrepo/HEAD", "x/y/newrepo", true},
		{"the common dir lacks refs/", []gitPiece{{"newrepo/HEAD", head}, {"newrepo/commondir", "../bare2\n"}, {"bare2/objects/", ""}},
			"bare2/config", "newrepo", false},
		{"a commondir with no HEAD beside it", []gitPiece{{"newrepo/commondir", "../bare2\n"}, {"bare2/objects/", ""}, {"bare2/refs/", ""}},
			"bare2/config", "newrepo", false},
		{"commondir sends git away from objects/ and refs/ beside it", []gitPiece{{"v/HEAD", head}, {"v/commondir", "../nowhere\n"}, {"v/objects/", ""}, {"v/refs/", ""}},
			"v/config", "v", false},
		{"objects/ and refs/ but no HEAD anywhere", []gitPiece{{"bare2/objects/", ""}, {"bare2/refs/", ""}, {"newrepo/", ""}},
			"bare2/config", "bare2", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := guardtest.TempRoot(t)
			for _, p := range c.have {
				full := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p.path, "/")))
				target, link := strings.CutPrefix(p.content, "->")
				switch {
				case strings.HasSuffix(p.path, "/"):
					os.MkdirAll(full, 0o755)
				case link:
					os.MkdirAll(filepath.Dir(full), 0o755)
					if err := os.Symlink(target, full); err != nil {
						t.Fatal(err)
					}
				default:
					guardtest.WritePiece(t, root, guardtest.Piece{Path: p.path, Content: strings.ReplaceAll(p.content, "ABS", root)})
					if p.content == "#!x" {
						os.Chmod(full, 0o755)
					}
				}
			}
			why := RunOnUse(root, filepath.Join(root, filepath.FromSlash(c.write)))
			if (why != "") != c.asks {
				t.Errorf("write %s: reason %q, want asks=%v", c.write, why, c.asks)
			}
			if strings.Contains(why, "\n") {
				t.Errorf("the reason is not one line: %q", why)
			}
			guardtest.WritePiece(t, root, guardtest.Piece{Path: c.write})
			pair := strings.Contains(c.name, "(the pair)")
			if sees := guardtest.GitSees(t, filepath.Join(root, filepath.FromSlash(c.gitDir))); sees != (c.asks && !pair) {
				t.Errorf("after writing %s git sees a repository in %s: %v; the guard asked: %v", c.write, c.gitDir, sees, c.asks)
			}
		})
	}
}

// The folders looked at for a commondir are read bounded and never block:
// a FIFO for commondir, for HEAD and for worktrees/ costs a refused open,
// and the pair still asks.
func TestGitDirectoryShapeNeverBlocks(t *testing.T) {
	root := guardtest.TempRoot(t)
	for _, d := range []string{"bare2/objects", "bare2/refs", "newrepo", "other"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	mkfifo(t, filepath.Join(root, "newrepo", "commondir"))
	mkfifo(t, filepath.Join(root, "bare2", "worktrees"))
	mkfifo(t, filepath.Join(root, "other", "HEAD"))
	mkfifo(t, filepath.Join(root, "other", "commondir"))
	at := func(rel string) string {
		return guardtest.Returns(t, "runOnUse "+rel, func() string { return RunOnUse(root, filepath.Join(root, filepath.FromSlash(rel))) })
	}
	if why := at("newrepo/HEAD"); why == "" {
		t.Error("a HEAD beside a commondir FIFO does not ask")
	}
	if why := at("bare2/config"); why != "" {
		t.Errorf("a config beside FIFOs asks: %s", why)
	}
}

// BenchmarkRunOnUseInCommonDir is the guard's cost for a write into a
// folder with objects/ and refs/ and no HEAD, in a project of 1,000
// folders: the most it lists to find a folder whose commondir names it.
func BenchmarkRunOnUseInCommonDir(b *testing.B) {
	root := guardtest.TempRoot(b)
	for _, d := range []string{"bare2/objects", "bare2/refs"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for i := range 1000 {
		os.MkdirAll(filepath.Join(root, fmt.Sprint("pkg", i)), 0o755)
	}
	target := filepath.Join(root, "bare2", "config")
	b.ReportAllocs()
	for b.Loop() {
		if why := RunOnUse(root, target); why != "" {
			b.Fatal(why)
		}
	}
}

// BenchmarkRunOnUseOrdinary is the guard's cost for an ordinary write
// five folders deep outside any repository.
func BenchmarkRunOnUseOrdinary(b *testing.B) {
	root := guardtest.TempRoot(b)
	target := filepath.Join(root, "a", "b", "c", "d", "e", "file.go")
	os.MkdirAll(filepath.Dir(target), 0o755)
	b.ReportAllocs()
	for b.Loop() {
		if why := RunOnUse(root, target); why != "" {
			b.Fatal(why)
		}
	}
}

// mkfifo makes a FIFO at p, which nobody writes to: reading it would
// block, so the guard must never open one.
func mkfifo(t *testing.T, p string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}

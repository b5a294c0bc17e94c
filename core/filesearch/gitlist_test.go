package filesearch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/safetext"
)

// lsFiles is what git itself lists in dir, NUL-separated, for comparing.
func lsFiles(t testing.TB, dir string, args ...string) []string {
	t.Helper()
	out := gitOut(t, dir, append([]string{"ls-files", "-z"}, args...)...)
	return strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
}

// With git, the first step lists what git tracks, tracked files that
// .gitignore matches included; the second adds what git neither tracks
// nor ignores, honouring .gitignore, info/exclude and the user's
// core.excludesFile. A change to the index is seen at the next Get; a
// project that is a folder of the repository lists its part.
func TestGitListsTrackedThenUntracked(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, root, map[string]string{
		".gitignore":              "*.log\nbuild/\n",
		"packages/api/handler.go": "package api\n",
		"README.md":               "hi\n",
		"kept.log":                "tracked although ignored\n",
		"build/keep.txt":          "tracked in an ignored folder\n",
		"build/out.bin":           "ignored\n",
		"scratch.txt":             "untracked\n",
		"notes/todo.md":           "untracked, in a new folder\n",
		"secret.env":              "info/exclude ignores it\n",
		"draft.wip":               "core.excludesFile ignores it\n",
	})
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", ".gitignore", "packages", "README.md")
	gitOut(t, root, "add", "-f", "kept.log", "build/keep.txt")
	write(t, root, map[string]string{".git/info/exclude": "secret.env\n"})
	_, find := testGit(t, globalConfig(t, "*.wip\n"))
	c := NewCache(DefaultLimits(), find)

	l, err := c.Get(context.Background(), root)
	tracked := []string{".gitignore", "README.md", "build/keep.txt", "kept.log", "packages/api/handler.go"}
	if err != nil || !l.FromIndex || l.Untracked || l.Warning != "" || !slices.Equal(l.Paths, tracked) {
		t.Fatalf("tracked: %v fromIndex=%v untracked=%v warning=%q\ngot  %q\nwant %q", err, l.FromIndex, l.Untracked, l.Warning, l.Paths, tracked)
	}
	u, err := c.AddUntracked(context.Background(), l)
	want := append(slices.Clone(tracked), "notes/todo.md", "scratch.txt")
	if err != nil || !u.Untracked || !slices.Equal(u.Paths, want) {
		t.Fatalf("with untracked: %v\ngot  %q\nwant %q", err, u.Paths, want)
	}
	if again, _ := c.Get(context.Background(), root); again != u {
		t.Fatal("the list with untracked files was not kept")
	}

	gitOut(t, root, "add", "scratch.txt")
	l, err = c.Get(context.Background(), root)
	if err != nil || !slices.Contains(l.Paths[:l.tracked], "scratch.txt") || len(l.Paths) != len(want) {
		t.Fatalf("after git add: %v %q (tracked %d)", err, l.Paths, l.tracked)
	}

	sub, err := c.Get(context.Background(), filepath.Join(root, "packages"))
	if err != nil || !sub.FromIndex || !slices.Equal(sub.Paths, []string{"api/handler.go"}) {
		t.Fatalf("a folder of the repository: %q %v %v", sub.Paths, sub.FromIndex, err)
	}
	notes, err := c.Get(context.Background(), filepath.Join(root, "notes"))
	if err != nil || notes.FromIndex || !slices.Equal(notes.Paths, []string{"todo.md"}) {
		t.Fatalf("an untracked folder of the repository: %q %v %v", notes.Paths, notes.FromIndex, err)
	}
}

// The case of issue 20: with core.splitIndex the index file holds only
// the latest changes (here one added file and nameless replacements), its
// base being a shared index. git lists all 51 tracked files; without git
// the list is the folder walked plus every tracked file the index files
// name, so tracked files that .gitignore matches are still there, and the
// list says how it was made.
func TestSplitIndexListsEveryTrackedFile(t *testing.T) {
	needGit(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	files := map[string]string{".gitignore": "gen/\n*.log\n", "gen/a.go": "generated, tracked\n", "x.log": "tracked\n"}
	for i := range 47 {
		files[filepath.Join("src", "f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".go")] = "package src\n"
	}
	write(t, root, files)
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "config", "core.splitIndex", "true")
	gitOut(t, root, "add", ".")
	gitOut(t, root, "add", "-f", "gen/a.go", "x.log")
	gitOut(t, root, "commit", "-q", "-m", "one")
	gitOut(t, root, "update-index", "--split-index") // a fresh shared index
	write(t, root, map[string]string{"late.go": "package late\n"})
	gitOut(t, root, "add", "late.go")
	write(t, root, map[string]string{"gen/b.go": "generated, ignored\n", "new.txt": "untracked\n"})
	tracked := lsFiles(t, root)
	if len(tracked) != 51 {
		t.Fatalf("the repository tracks %d files, not 51", len(tracked))
	}
	data, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	n, ext, err := parseIndex(data, 20)
	if err != nil || ext.shared == "" || len(n.strings("")) >= 51 {
		t.Fatalf("the index file is not split as the test needs: %v shared=%q %d paths", err, ext.shared, len(n.strings("")))
	}

	_, find := testGit(t, "")
	c := NewCache(DefaultLimits(), find)
	l, err := c.Get(context.Background(), root)
	if err != nil || !l.FromIndex || !slices.Equal(l.Paths, tracked) {
		t.Fatalf("with git: %v\ngot  %q\nwant %q", err, l.Paths, tracked)
	}
	u, err := c.AddUntracked(context.Background(), l)
	if err != nil || !slices.Equal(u.Paths, append(slices.Clone(tracked), "new.txt")) {
		t.Fatalf("with git, untracked: %v %q", err, u.Paths)
	}

	w, err := NewCache(DefaultLimits(), noGit(t)).Get(context.Background(), root)
	got := slices.Sorted(slices.Values(w.Paths))
	want := slices.Sorted(slices.Values(append(slices.Clone(tracked), "new.txt")))
	if err != nil || w.FromIndex || !slices.Equal(got, want) || !strings.Contains(w.Warning, "split") {
		t.Fatalf("without git: %v fromIndex=%v warning=%q\ngot  %q\nwant %q", err, w.FromIndex, w.Warning, got, want)
	}

	// The shared index gone: the walk is all there is, and the list says
	// what it may lack.
	shared, _ := filepath.Glob(filepath.Join(root, ".git", "sharedindex.*"))
	for _, s := range shared {
		os.Remove(s)
	}
	w, err = NewCache(DefaultLimits(), noGit(t)).Get(context.Background(), root)
	if err != nil || slices.Contains(w.Paths, "gen/a.go") || !slices.Contains(w.Paths, "late.go") ||
		!strings.Contains(w.Warning, "tracked files that .gitignore matches may be missing") {
		t.Fatalf("without the shared index: %v %q warning=%q", err, w.Paths, w.Warning)
	}
}

// Files inside a checked-out submodule are listed, by their path in the
// project, untracked ones in the second step; a submodule that is not
// checked out is not (neither its folder nor its files), nor one whose
// folder is a link out of the project; files outside a sparse checkout are not (its
// skip-worktree entries); a
// conflicted file is listed once.
func TestGitSubmodulesSparseAndConflicts(t *testing.T) {
	needGit(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	sub := filepath.Join(base, "sub")
	write(t, sub, map[string]string{"inner.go": "package inner\n"})
	gitOut(t, sub, "init", "-q")
	gitOut(t, sub, "add", ".")
	gitOut(t, sub, "commit", "-q", "-m", "sub")

	root := filepath.Join(base, "main")
	write(t, root, map[string]string{"a.go": "package a\n", "d/b.go": "package d\n", "f.txt": "one\n"})
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", ".")
	gitOut(t, root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../sub", "sm")
	gitOut(t, root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../sub", "gone")
	gitOut(t, root, "commit", "-q", "-m", "main")
	gitOut(t, root, "submodule", "deinit", "-q", "-f", "gone")
	// A gitlink whose folder is a link out of the project is not entered.
	if err := os.Symlink(sub, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(gitOut(t, sub, "rev-parse", "HEAD"))
	gitOut(t, root, "update-index", "--add", "--cacheinfo", "160000,"+head+",out")
	write(t, root, map[string]string{"sm/scratch.txt": "untracked in the submodule\n"})
	_, find := testGit(t, "")

	c := NewCache(DefaultLimits(), find)
	l, err := c.Get(context.Background(), root)
	want := []string{".gitmodules", "a.go", "d/b.go", "f.txt", "sm/inner.go"}
	if err != nil || !slices.Equal(l.Paths, want) {
		t.Fatalf("submodules: %v\ngot  %q\nwant %q", err, l.Paths, want)
	}
	u, err := c.AddUntracked(context.Background(), l)
	if err != nil || !slices.Equal(u.Paths, append(slices.Clone(want), "sm/scratch.txt")) {
		t.Fatalf("submodules, untracked: %v %q", err, u.Paths)
	}
	os.Remove(filepath.Join(root, "sm", "scratch.txt"))
	gitOut(t, root, "rm", "-q", "-f", "--cached", "out")

	// A conflict: three stages of f.txt in the index.
	gitOut(t, root, "checkout", "-q", "-b", "other")
	write(t, root, map[string]string{"f.txt": "two\n"})
	gitOut(t, root, "commit", "-q", "-am", "two")
	gitOut(t, root, "checkout", "-q", "-")
	write(t, root, map[string]string{"f.txt": "three\n"})
	gitOut(t, root, "commit", "-q", "-am", "three")
	mergeConflict(t, root, "other")
	l, err = NewCache(DefaultLimits(), find).Get(context.Background(), root)
	if err != nil || !slices.Equal(l.Paths, want) {
		t.Fatalf("conflict: %v\ngot  %q\nwant %q", err, l.Paths, want)
	}
	gitOut(t, root, "merge", "--abort")

	gitOut(t, root, "sparse-checkout", "set", "--no-cone", "/a.go")
	l, err = NewCache(DefaultLimits(), find).Get(context.Background(), root)
	// git keeps submodules checked out in a sparse checkout.
	if err != nil || !slices.Equal(l.Paths, []string{"a.go", "sm/inner.go"}) {
		t.Fatalf("sparse: %v %q", err, l.Paths)
	}
}

// mergeConflict merges branch into dir's checkout, which must conflict.
func mergeConflict(t *testing.T, dir, branch string) {
	t.Helper()
	cmd := gitCmd(dir, "merge", "-q", branch)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not conflict: %s", out)
	}
}

// Names are taken byte for byte from git's -z output, never C-quoted:
// spaces, quotes and non-ASCII letters stay as they are, and a name that
// is not UTF-8 is listed with its bytes (the menu shows it escaped);
// names with control characters are left out, as pi-tui never offers
// them.
func TestGitNamesAreExactAndShownSafely(t *testing.T) {
	needGit(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	names := []string{"été.go", `a "quoted" name.go`, "bad\xffname.go", "ctl\x01.go", "new\nline.go"}
	for _, n := range names {
		write(t, root, map[string]string{n: "x\n"})
	}
	write(t, root, map[string]string{"odd\xfe.txt": "untracked\n"})
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", "--", names[0], names[1], names[2], names[3], names[4])
	_, find := testGit(t, "")
	c := NewCache(DefaultLimits(), find)
	l, err := c.Get(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.AddUntracked(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`a "quoted" name.go`, "bad\xffname.go", "odd\xfe.txt", "été.go"}
	if got := slices.Sorted(slices.Values(u.Paths)); !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if s := safetext.VisibleLine("bad\xffname.go"); s != `bad\xffname.go` {
		t.Fatalf("shown as %q", s)
	}
}

// A cached list whose untracked files are due to be looked for again is
// rebuilt with its old untracked files after the tracked ones, so the
// menu does not lose them meanwhile; AddUntracked then replaces them with
// what is there now.
func TestRefreshKeepsUntrackedFilesUntilLookedAgain(t *testing.T) {
	needGit(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, root, map[string]string{"a.go": "package a\n", "scratch.txt": "untracked\n"})
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", "a.go")
	lim := DefaultLimits()
	lim.WalkMaxAge = 0 // every untracked list is due at once
	_, find := testGit(t, "")
	for name, find := range map[string]GitFinder{"git": find, "without git": nil} {
		c := NewCache(lim, find)
		l, _ := c.Get(context.Background(), root)
		u, err := c.AddUntracked(context.Background(), l)
		if err != nil || !slices.Equal(u.Paths, []string{"a.go", "scratch.txt"}) {
			t.Fatalf("%s: %v %q", name, err, u.Paths)
		}
		write(t, root, map[string]string{"new.txt": "untracked too\n"})
		l, err = c.Get(context.Background(), root)
		if err != nil || l.Untracked || !slices.Equal(l.Paths, []string{"a.go", "scratch.txt"}) {
			t.Fatalf("%s: refreshed: %v untracked=%v %q", name, err, l.Untracked, l.Paths)
		}
		u, err = c.AddUntracked(context.Background(), l)
		if err != nil || !slices.Equal(u.Paths, []string{"a.go", "new.txt", "scratch.txt"}) {
			t.Fatalf("%s: looked again: %v %q", name, err, u.Paths)
		}
		os.Remove(filepath.Join(root, "new.txt"))
	}
}

// scriptGit is a git that misbehaves: each command's output is a shell
// script's, a real process, by the command's first argument.
type scriptGit map[string]string

func (g scriptGit) Command(ctx context.Context, dir string, args ...string) (*exec.Cmd, error) {
	return exec.CommandContext(ctx, "/bin/sh", "-c", g[args[0]]), nil
}

// A git that prints garbage, fails, prints without end, prints a record
// without end or hangs gives a list all the same, made without it, with
// a warning naming what git did; an endless listing stops at MaxFiles.
func TestMisbehavingGit(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, root, map[string]string{"main.go": "package main\n"})
	revParse := `printf 'true\n.git/index\n\n` + root + `\n'`
	cases := map[string]struct {
		script, warning string
		hangs           bool
	}{
		"garbage":         {`printf 'H 100644 x 0\ta.go\0garbage\0'`, `git ls-files printed "garbage"`, false},
		"fails":           {`echo 'fatal: index file corrupt' >&2; exit 128`, "git ls-files: index file corrupt", false},
		"endless record":  {`while :; do printf aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done`, "a record over 65536 bytes", false},
		"cut-off record":  {`printf 'H 100644 x 0\ta.go'`, "ends in the middle of a record", false},
		"hangs":           {`exec sleep 600`, "gave up after 200ms", true},
		"hangs, a child":  {`sleep 600; echo`, "gave up after 200ms", true},
		"rev-parse fails": {"", "git rev-parse: bad config", false},
	}
	for name, tc := range cases {
		g := scriptGit{"rev-parse": revParse, "ls-files": tc.script}
		if name == "rev-parse fails" {
			g["rev-parse"] = `echo 'fatal: bad config line 1' >&2; exit 128`
		}
		lim := DefaultLimits()
		if tc.hangs {
			lim.GitTimeout = time.Second / 5 // only a hang waits for it
		}
		l, err := Build(context.Background(), root, lim, g)
		if err != nil || !slices.Equal(l.Paths, []string{"main.go"}) || !strings.Contains(l.Warning, tc.warning) {
			t.Errorf("%s: %v %q warning=%q", name, err, l.Paths, l.Warning)
		}
	}

	lim := DefaultLimits()
	lim.MaxFiles = 100
	g := scriptGit{"rev-parse": revParse, "ls-files": `i=0; while :; do i=$((i+1)); printf 'H 100644 x 0\tf%d\0' $i; done`}
	l, err := Build(context.Background(), root, lim, g)
	if err != nil || len(l.Paths) != 100 || !l.Truncated || l.Paths[99] != "f100" {
		t.Fatalf("endless listing: %v %d paths, truncated=%v", err, len(l.Paths), l.Truncated)
	}
}

// FuzzParseStaged: any record gives a path or an error, never a panic,
// and the path is what follows the first tab.
func FuzzParseStaged(f *testing.F) {
	f.Add([]byte("H 100644 0123 0\ta.go"))
	f.Add([]byte("S 160000 0123 0\tsm"))
	f.Add([]byte("M 100644 0123 2\tf\tg"))
	f.Add([]byte("\t"))
	f.Fuzz(func(t *testing.T, rec []byte) {
		p, _, _, err := parseStaged(rec)
		if err != nil {
			return
		}
		_, after, _ := strings.Cut(string(rec), "\t")
		if string(p) != after {
			t.Fatalf("%q gave %q", rec, p)
		}
	})
}

// On a machine without git (none on the PATH) the index file is read,
// and the untracked files are found by walking the folder.
func TestWithoutGitOnThePath(t *testing.T) {
	needGit(t) // to make the repository
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, root, map[string]string{".gitignore": "*.log\n", "a.go": "package a\n", "kept.log": "tracked\n", "scratch.txt": "x\n", "skip.log": "ignored\n"})
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", "a.go", ".gitignore")
	gitOut(t, root, "add", "-f", "kept.log")
	c := NewCache(DefaultLimits(), noGit(t))
	l, err := c.Get(context.Background(), root)
	if err != nil || !l.FromIndex || l.viaGit || !slices.Equal(l.Paths, lsFiles(t, root)) {
		t.Fatalf("%v fromIndex=%v viaGit=%v %q", err, l.FromIndex, l.viaGit, l.Paths)
	}
	u, err := c.AddUntracked(context.Background(), l)
	if err != nil || !slices.Equal(u.Paths, append(lsFiles(t, root), "scratch.txt")) {
		t.Fatalf("untracked: %v %q", err, u.Paths)
	}
}

// In a large checkout Get returns once git has listed Limits.FirstBatch
// tracked files, as a Partial list, and git goes on; AddUntracked on it
// returns every tracked file, and on that the untracked ones. When the
// index changes, Get answers at once with the previous list while the
// new one is made.
func TestLargeCheckoutComesInParts(t *testing.T) {
	needGit(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	files := map[string]string{"scratch.txt": "untracked\n"}
	for i := range 300 {
		files[fmt.Sprintf("src/f%03d.go", i)] = "package src\n"
	}
	write(t, root, files)
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", "src")
	tracked := lsFiles(t, root)
	lim := DefaultLimits()
	lim.FirstBatch = 50
	_, find := testGit(t, "")
	c := NewCache(lim, find)
	ctx := context.Background()

	part, err := c.Get(ctx, root)
	if err != nil || !part.Partial() || !part.FromIndex || !slices.Equal(part.Paths, tracked[:50]) {
		t.Fatalf("first part: %v partial=%v %d paths", err, part.Partial(), len(part.Paths))
	}
	whole, err := c.AddUntracked(ctx, part)
	if err != nil || whole.Partial() || whole.Untracked || !slices.Equal(whole.Paths, tracked) {
		t.Fatalf("whole: %v partial=%v untracked=%v %d paths", err, whole.Partial(), whole.Untracked, len(whole.Paths))
	}
	if again, _ := c.Get(ctx, root); again != whole {
		t.Fatal("the whole list did not replace the part in the cache")
	}
	u, err := c.AddUntracked(ctx, whole)
	if err != nil || !u.Untracked || !slices.Equal(u.Paths, append(slices.Clone(tracked), "scratch.txt")) {
		t.Fatalf("untracked: %v %d paths", err, len(u.Paths))
	}

	gitOut(t, root, "add", "scratch.txt")
	prev, err := c.Get(ctx, root)
	if err != nil || !prev.Partial() || !slices.Equal(prev.Paths, u.Paths) {
		t.Fatalf("while listing again: %v partial=%v %d paths", err, prev.Partial(), len(prev.Paths))
	}
	whole, err = c.AddUntracked(ctx, prev)
	if err != nil || whole.Partial() || !slices.Equal(whole.Paths, lsFiles(t, root)) {
		t.Fatalf("listed again: %v %q", err, whole.Paths[len(whole.Paths)-2:])
	}
}

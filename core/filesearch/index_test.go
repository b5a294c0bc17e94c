package filesearch

import (
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/filesearch/indextest"
)

// gitCmd is a git command in dir that sets a repository up for a test,
// with no user configuration.
func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	return cmd
}

func gitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitCmd(dir, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		out = append(out, ee.Stderr...)
	}
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the index written by real git cannot be checked")
	}
}

func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Without git, a real git checkout is listed from its index file, exactly as `git ls-files`
// lists it, in index versions 2, 3 and 4: a force-added ignored file is
// there (git tracks it), an untracked file is not (the index does not know
// it), and a project that is a folder of the repository lists its part.
// A worktree's .git file leads to its own index.
func TestIndexListsWhatGitTracks(t *testing.T) {
	needGit(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, root, map[string]string{
		".gitignore":              "*.log\nbuild/\n",
		"packages/api/handler.go": "package api\n",
		"packages/api/Router.go":  "package api\n",
		"README.md":               "hi\n",
		"kept.log":                "forced\n",
		"build/out.bin":           "x",
		"scratch.txt":             "untracked\n",
	})
	gitOut(t, root, "init", "-q")
	gitOut(t, root, "add", ".gitignore", "packages", "README.md")
	gitOut(t, root, "add", "-f", "kept.log")
	if err := os.Symlink("README.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	gitOut(t, root, "add", "link.md")
	check := func(name string) {
		t.Helper()
		l, err := Build(context.Background(), root, DefaultLimits(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(gitOut(t, root, "ls-files"))
		if !l.FromIndex || l.Warning != "" || !slices.Equal(l.Paths, want) {
			t.Fatalf("%s: fromIndex=%v warning=%q\ngot  %q\nwant %q", name, l.FromIndex, l.Warning, l.Paths, want)
		}
		if slices.Contains(l.Paths, "scratch.txt") || slices.Contains(l.Paths, "build/out.bin") {
			t.Fatalf("%s: untracked or ignored file listed: %q", name, l.Paths)
		}
	}
	check("version 2")
	write(t, root, map[string]string{"later.go": "package later\n"})
	gitOut(t, root, "add", "-N", "later.go") // intent-to-add: an extended flag, version 3
	check("version 3")
	gitOut(t, root, "update-index", "--index-version", "4")
	check("version 4")

	// The second step adds what git neither tracks nor ignores.
	write(t, root, map[string]string{".git/info/exclude": "secret.env\n", "secret.env": "k=v\n"})
	c := NewCache(DefaultLimits(), nil)
	l, err := c.Get(context.Background(), root)
	if err != nil || l.Untracked {
		t.Fatalf("first step: %v untracked=%v", err, l.Untracked)
	}
	u, err := c.AddUntracked(context.Background(), l)
	want := append(strings.Fields(gitOut(t, root, "ls-files")), "scratch.txt")
	if err != nil || !u.Untracked || !slices.Equal(u.Paths, want) {
		t.Fatalf("with untracked files: %v\ngot  %q\nwant %q", err, u.Paths, want)
	}
	if again, _ := c.Get(context.Background(), root); again != u {
		t.Fatal("the list with untracked files was not kept")
	}

	sub, err := Build(context.Background(), filepath.Join(root, "packages"), DefaultLimits(), nil)
	if err != nil || !sub.FromIndex || !slices.Equal(sub.Paths, []string{"api/Router.go", "api/handler.go"}) {
		t.Fatalf("a folder of the repository: %q %v %v", sub.Paths, sub.FromIndex, err)
	}

	gitOut(t, root, "commit", "-q", "-m", "one")
	wt := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-wt")
	gitOut(t, root, "worktree", "add", "-q", wt)
	t.Cleanup(func() { os.RemoveAll(wt) })
	w, err := Build(context.Background(), wt, DefaultLimits(), nil)
	if err != nil || !w.FromIndex || !slices.Contains(w.Paths, "packages/api/handler.go") {
		t.Fatalf("worktree: %q %v %v", w.Paths, w.FromIndex, err)
	}
}

// A SHA-256 repository's index (32-byte object names) is read too.
func TestIndexOfASHA256Repository(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	write(t, root, map[string]string{"a/b.go": "package a\n", "c.md": "c\n"})
	cmd := exec.Command("git", "init", "-q", "--object-format=sha256")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("this git cannot make a SHA-256 repository: %v %s", err, out)
	}
	gitOut(t, root, "add", ".")
	l, err := Build(context.Background(), root, DefaultLimits(), nil)
	if err != nil || !l.FromIndex || !slices.Equal(l.Paths, []string{"a/b.go", "c.md"}) {
		t.Fatalf("%q fromIndex=%v warning=%q err=%v", l.Paths, l.FromIndex, l.Warning, err)
	}
}

// A hostile or broken index gives an error naming what is wrong, never a
// panic; Build then walks the folder and says why.
func TestHostileIndexFallsBackToTheWalk(t *testing.T) {
	good := indextest.Encode(2, []string{"a.go", "b/c.go"})
	long := indextest.Encode(2, strings.Fields("some/dir/a.go some/dir/b.go some/dir/c.go some/dir/d.go"))
	huge := slices.Clone(good)
	binary.BigEndian.PutUint32(huge[8:], 0xFFFFFFFF)
	badLen := slices.Clone(good)
	badLen[12+entryFixed+20+1] = 9 // a.go's name length
	v4 := indextest.Encode(4, []string{"abc", "abd"})
	badStrip := slices.Clone(v4)
	badStrip[12+2*(entryFixed+20+2)+1+4] = 0x7f // the second entry strips 127 bytes
	cases := map[string]struct {
		data []byte
		want string
	}{
		"empty":        {nil, "too short"},
		"no signature": {append([]byte("XXXX"), good[4:]...), "DIRC"},
		"version 9":    {append(append([]byte("DIRC"), 0, 0, 0, 9), good[8:]...), "version 9"},
		"huge count":   {huge, "claims 4294967295 entries"},
		"truncated":    {long[:len(long)-40], "cut off"},
		"name length":  {badLen, "says its path has"},
		"bad strip":    {badStrip, "strips 127 bytes"},
	}
	for name, c := range cases {
		_, _, err := parseIndex(c.data, 20)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", name, err, c.want)
		}
	}

	root := t.TempDir()
	write(t, root, map[string]string{"main.go": "package main\n", ".git/HEAD": "ref: refs/heads/main\n"})
	if err := os.WriteFile(filepath.Join(root, ".git", "index"), huge, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Build(context.Background(), root, DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.FromIndex || !slices.Equal(l.Paths, []string{"main.go"}) || !strings.Contains(l.Warning, "claims 4294967295 entries") {
		t.Fatalf("fallback: %q fromIndex=%v warning=%q", l.Paths, l.FromIndex, l.Warning)
	}
}

// Paths an index may hold but pi-tui never offers: outside the root,
// inside .git, with control characters; and entries that are not files in
// the work tree.
func TestIndexDropsPathsItNeverOffers(t *testing.T) {
	in := []string{"../etc/passwd", ".git/config", "a/../../x", "ok.go", "sub/.GIT/hooks/x", "tab\tname", "/abs"}
	n, _, err := parseIndex(indextest.Encode(2, in), 20)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.strings(""); !slices.Equal(got, []string{"ok.go"}) {
		t.Fatalf("got %q", got)
	}
	for _, v := range []uint32{2, 4} {
		paths := []string{strings.Repeat("d/", 3000) + "long.go", "z.go"} // a name over 0xFFF bytes
		n, _, err := parseIndex(indextest.Encode(v, paths), 20)
		if err != nil || !slices.Equal(n.strings(""), paths) {
			t.Fatalf("v%d long name: %v %d", v, err, len(n.strings("")))
		}
	}
}

// FuzzParseIndex: any bytes give paths or an error, never a panic, and
// every path returned is one pi-tui may offer.
func FuzzParseIndex(f *testing.F) {
	f.Add(indextest.Encode(2, []string{"a.go", "b/c.go"}))
	f.Add(indextest.Encode(4, []string{"abc", "abd", "b/c"}))
	f.Add([]byte("DIRC\x00\x00\x00\x03\xff\xff\xff\xff"))
	f.Add(withExtension(indextest.Encode(2, []string{"a.go"}), "link", make([]byte, 28)))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, h := range []int{20, 32} {
			n, _, err := parseIndex(data, h)
			if err != nil {
				continue
			}
			for _, p := range n.strings("") {
				if !cleanPath([]byte(p)) {
					t.Fatalf("offered %q", p)
				}
			}
		}
	})
}

// withExtension returns index data with an extension added before the
// checksum (which the reader does not check).
func withExtension(data []byte, sig string, body []byte) []byte {
	out := slices.Clone(data[:len(data)-20])
	out = append(out, sig...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	return append(out, data[len(data)-20:]...)
}

// Without git, an optional extension (a cache) changes nothing; a
// required one the reader does not know means the entries cannot be
// trusted alone: the folder is walked, the tracked files the index names
// that are there are added (one that .gitignore matches included, one
// that is gone not), and the list says why.
func TestUnknownIndexExtensionIsSaid(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{".gitignore": "*.log\n", "kept.log": "tracked\n", "main.go": "package main\n", "new.txt": "x\n"})
	index := indextest.Encode(2, []string{".gitignore", "gone.go", "kept.log", "main.go"})
	list := func(sig string) *List {
		t.Helper()
		write(t, root, map[string]string{".git/index": string(withExtension(index, sig, []byte("whatever")))})
		l, err := Build(context.Background(), root, DefaultLimits(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := list("ZZZZ")
	if got := l.Paths; !l.FromIndex || l.Warning != "" || !slices.Equal(got, []string{".gitignore", "gone.go", "kept.log", "main.go"}) {
		t.Fatalf("optional: fromIndex=%v %q warning=%q", l.FromIndex, got, l.Warning)
	}
	l = list("zzzz")
	got := slices.Sorted(slices.Values(l.Paths))
	if l.FromIndex || !slices.Equal(got, []string{".gitignore", "kept.log", "main.go", "new.txt"}) ||
		!strings.Contains(l.Warning, `extension pi-tui cannot read without git ("zzzz")`) {
		t.Fatalf("required: fromIndex=%v %q warning=%q", l.FromIndex, got, l.Warning)
	}
	cut := withExtension(index, "zzzz", nil)
	binary.BigEndian.PutUint32(cut[len(cut)-24:], 1000)
	if _, _, err := parseIndex(cut, 20); err == nil || !strings.Contains(err.Error(), "claims 1000 bytes") {
		t.Fatalf("a cut-off extension: %v", err)
	}
}

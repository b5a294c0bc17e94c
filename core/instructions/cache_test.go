//go:build unix

package instructions

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The directory cache is tested on real trees. A test tree is made to look
// like a real checkout by setting its directories' mtimes an hour back and
// running the Resolver's clock an hour ahead (ctime cannot be set back, and
// tests do not sleep): the Resolver then trusts what it records, so these
// tests exercise the cached path, while the racy-timestamp margin itself is
// tested separately with a clock that makes nothing old enough.

// cachingResolver returns a Resolver whose clock runs an hour ahead, so
// every directory of a test tree counts as settled.
func cachingResolver(tr *tree, m Model) *Resolver {
	r := tr.resolver(m)
	r.now = func() time.Time { return time.Now().Add(time.Hour) }
	return r
}

// backdate sets the mtime of every directory below (and including) each
// of dirs an hour back and returns that time.
func backdate(t testing.TB, dirs ...string) time.Time {
	t.Helper()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				err = os.Chtimes(p, old, old)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return old
}

// times returns a path's mtime and ctime in nanoseconds.
func times(t testing.TB, p string) (mtime, ctime int64, ok bool) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return statTimes(fi.Sys().(*syscall.Stat_t))
}

// waitClockTick returns once the file system's clock has moved past the
// ctime of dir, so that a change made afterwards gets a later ctime. It
// polls a scratch file (no sleep); on a coarse clock that is one tick.
func waitClockTick(t testing.TB, dir string) {
	t.Helper()
	_, c0, ok := times(t, dir)
	if !ok {
		return
	}
	scratch := filepath.Join(t.TempDir(), "tick")
	for i := 0; i < 10_000_000; i++ {
		if err := os.WriteFile(scratch, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, c, _ := times(t, scratch); c > c0 {
			return
		}
	}
	t.Fatal("the file system clock does not advance")
}

func needCache(t *testing.T, r *Resolver) {
	t.Helper()
	if r.dirs.len() == 0 {
		if _, _, ok := times(t, "."); !ok {
			t.Skip("no directory cache on this platform")
		}
		t.Fatal("nothing was cached; the test does not exercise the cache")
	}
}

func resolveWith(t *testing.T, r *Resolver, root, target string) *Chain {
	t.Helper()
	c, err := r.ResolveTarget(context.Background(), root, target)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A candidate created after a resolution is seen by the next one with the
// same Resolver, whether or not the directory was cached.
func TestCacheSeesNewCandidates(t *testing.T) {
	cases := []struct {
		name  string
		model Model
		file  string // created in sub/deep
		label string // expected new source
	}{
		{"override", noModel, "AGENTS.override.md", "sub/deep/AGENTS.override.md"},
		{"agents", noModel, "AGENTS.md", "sub/deep/AGENTS.md"},
		{"agents-upper", noModel, "AGENTS.MD", "sub/deep/AGENTS.MD"},
		{"claude", noModel, "CLAUDE.md", "sub/deep/CLAUDE.md"},
		{"claude-upper", noModel, "CLAUDE.MD", "sub/deep/CLAUDE.MD"},
		{"dot-claude", noModel, ".claude/CLAUDE.md", "sub/deep/.claude/CLAUDE.md"},
		{"provider-claude", anthropic, "CLAUDE.md", "sub/deep/CLAUDE.md"},
		{"provider-codex", openai, "CODEX.md", "sub/deep/CODEX.md"},
		{"provider-gemini", Model{Provider: "google", ID: "gemini-2.5-pro"}, "GEMINI.md", "sub/deep/GEMINI.md"},
	}
	for _, tc := range cases {
		for _, mode := range []string{"backdated", "fresh"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				tr := newTree(t)
				tr.write("AGENTS.md", "root rules")
				tr.write("sub/deep/x.go", "package x")
				tr.mkdir("sub/deep/.claude")
				tr.write("sub/deep/.claude/settings.json", "{}")
				var r *Resolver
				if mode == "backdated" {
					backdate(t, tr.base)
					r = cachingResolver(tr, tc.model)
				} else {
					// The real rule: directories written just now are
					// never trusted, whatever the clock says later.
					r = tr.resolver(tc.model)
					written := time.Now()
					r.now = func() time.Time { return written }
				}
				wantLabels(t, resolveWith(t, r, tr.root, "sub/deep/x.go"), "AGENTS.md")
				if mode == "backdated" {
					needCache(t, r)
				} else if n := r.dirs.len(); n != 0 {
					t.Fatalf("%d fresh directories cached", n)
				}
				tr.write("sub/deep/"+tc.file, "new rules")
				wantLabels(t, resolveWith(t, r, tr.root, "sub/deep/x.go"), "AGENTS.md", tc.label)
				// And once more, now that the new state may be cached.
				wantLabels(t, resolveWith(t, r, tr.root, "sub/deep/x.go"), "AGENTS.md", tc.label)
			})
		}
	}
}

// A .claude directory created after a resolution (with CLAUDE.md in it),
// and a CLAUDE.md created in an existing .claude of a cached directory.
func TestCacheDotClaude(t *testing.T) {
	tr := newTree(t)
	tr.write("a/x.go", "package x")
	tr.mkdir("b/.claude")
	tr.write("b/x.go", "package x")
	backdate(t, tr.base)
	r := cachingResolver(tr, noModel)
	wantLabels(t, resolveWith(t, r, tr.root, "a/x.go"))
	wantLabels(t, resolveWith(t, r, tr.root, "b/x.go"))
	needCache(t, r)
	tr.write("a/.claude/CLAUDE.md", "a rules")
	tr.write("b/.claude/CLAUDE.md", "b rules")
	wantLabels(t, resolveWith(t, r, tr.root, "a/x.go"), "a/.claude/CLAUDE.md")
	wantLabels(t, resolveWith(t, r, tr.root, "b/x.go"), "b/.claude/CLAUDE.md")
	if err := os.Remove(tr.abs("b/.claude/CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	wantLabels(t, resolveWith(t, r, tr.root, "b/x.go"))
}

// Forging a directory's mtime back to the exact value the cache recorded
// does not hide a new file: the forgery itself changes the ctime.
func TestCacheForgedMtime(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "root rules")
	tr.write("sub/x.go", "package x")
	old := backdate(t, tr.base)
	r := cachingResolver(tr, anthropic)
	wantLabels(t, resolveWith(t, r, tr.root, "sub/x.go"), "AGENTS.md")
	needCache(t, r)
	sub := tr.abs("sub")
	m0, c0, _ := times(t, sub)
	waitClockTick(t, sub)
	for _, f := range []string{"AGENTS.override.md", "CLAUDE.md"} {
		tr.write("sub/"+f, f+" rules")
	}
	if err := os.Chtimes(sub, old, old); err != nil {
		t.Fatal(err)
	}
	if m, c, _ := times(t, sub); m != m0 || c == c0 {
		t.Fatalf("mtime %d (want the old %d), ctime %d (want a new one, not %d)", m, m0, c, c0)
	}
	wantLabels(t, resolveWith(t, r, tr.root, "sub/x.go"), "AGENTS.md", "sub/AGENTS.override.md", "sub/CLAUDE.md")
}

// Deleting a file, and replacing a file with a FIFO, between resolutions.
func TestCacheDeleteAndFIFO(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "root rules")
	tr.write("sub/AGENTS.md", "sub rules")
	tr.write("sub/CLAUDE.md", "sub claude")
	tr.write("sub/x.go", "package x")
	backdate(t, tr.base)
	r := cachingResolver(tr, anthropic)
	wantLabels(t, resolveWith(t, r, tr.root, "sub/x.go"), "AGENTS.md", "sub/AGENTS.md", "sub/CLAUDE.md")
	needCache(t, r)

	if err := os.Remove(tr.abs("sub/CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	c := resolveWith(t, r, tr.root, "sub/x.go")
	wantLabels(t, c, "AGENTS.md", "sub/AGENTS.md")
	if len(c.Skipped) != 0 {
		t.Errorf("skipped %+v", c.Skipped)
	}

	// A FIFO replaces a file that existed, and appears where the cache
	// had recorded nothing.
	p := tr.abs("sub/AGENTS.md")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(tr.abs("sub/AGENTS.override.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.write("sub/CLAUDE.MD", "sub upper claude")
	c = resolveWith(t, r, tr.root, "sub/x.go")
	wantLabels(t, c, "AGENTS.md", "sub/CLAUDE.MD")
	for _, f := range []string{"sub/AGENTS.override.md", "sub/AGENTS.md"} {
		if got := skipReason(c, tr.abs(f)); got != "not a regular file (fifo)" {
			t.Errorf("%s: reason %q", f, got)
		}
	}
	// The same state again (now possibly from the cache).
	c2 := resolveWith(t, r, tr.root, "sub/x.go")
	if fmt.Sprint(c2.Sources, c2.Skipped) != fmt.Sprint(c.Sources, c.Skipped) {
		t.Errorf("second resolution differs:\n%+v\n%+v", c2, c)
	}
}

// A file's content changes without its directory changing: it is read
// again every time.
func TestCacheRereadsContent(t *testing.T) {
	tr := newTree(t)
	tr.write("AGENTS.md", "one")
	backdate(t, tr.base)
	r := cachingResolver(tr, noModel)
	if c := resolveWith(t, r, tr.root, "x"); c.Sources[0].Content != "one" {
		t.Fatalf("content %q", c.Sources[0].Content)
	}
	needCache(t, r)
	tr.write("AGENTS.md", "two")
	if c := resolveWith(t, r, tr.root, "x"); c.Sources[0].Content != "two" {
		t.Fatalf("content %q", c.Sources[0].Content)
	}
}

// Targets through links inside the root use the canonical directories,
// which are cached under their own paths.
func TestCacheThroughLinks(t *testing.T) {
	tr := newTree(t)
	tr.write("real/deep/x.go", "package x")
	tr.symlink(tr.abs("real"), "link")
	backdate(t, tr.base)
	r := cachingResolver(tr, noModel)
	wantLabels(t, resolveWith(t, r, tr.root, "link/deep/x.go"))
	needCache(t, r)
	tr.write("real/AGENTS.md", "real rules")
	tr.write("real/deep/CLAUDE.md", "deep rules")
	wantLabels(t, resolveWith(t, r, tr.root, "link/deep/x.go"), "real/AGENTS.md", "real/deep/CLAUDE.md")
}

// Many goroutines share one Resolver while other goroutines keep changing
// the directories (files that are not candidates come and go, so the keys
// change under the resolvers' feet). Run with -race.
func TestCacheConcurrent(t *testing.T) {
	tr := newTree(t)
	tr.write(filepath.Join(tr.agent, "AGENTS.md"), "global")
	tr.write("AGENTS.md", "root")
	tr.write("a/b/CLAUDE.md", "ab")
	tr.write("a/b/c/.claude/CLAUDE.md", "abc")
	tr.write("d/AGENTS.override.md", "d")
	tr.mkdir("d/e/f")
	backdate(t, tr.base)
	targets := []string{"a/b/c/x.go", "a/b/y.go", "d/e/f/z.go", "d/e/", "", "a/new/file.go"}
	want := map[string]string{}
	for _, tg := range targets {
		want[tg] = strings.Join(labels(tr.target(anthropic, tg)), "|")
	}
	r := cachingResolver(tr, anthropic)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var churn sync.WaitGroup
	for _, d := range []string{"a/b", "d/e", ""} {
		churn.Add(1)
		go func() {
			defer churn.Done()
			p := filepath.Join(tr.abs(d), "churn.go")
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i%2 == 0 {
					os.WriteFile(p, nil, 0o644)
				} else {
					os.Remove(p)
				}
			}
		}()
	}
	errs := make(chan string, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				tg := targets[(g+i)%len(targets)]
				c, err := r.ResolveTarget(context.Background(), tr.root, tg)
				if err != nil {
					errs <- err.Error()
					return
				}
				if got := strings.Join(labels(c), "|"); got != want[tg] {
					errs <- fmt.Sprintf("%s: %s, want %s", tg, got, want[tg])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	churn.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	needCache(t, r)
}

func TestDirCacheUnit(t *testing.T) {
	var c dirCache
	k := dirKey{dev: 1, ino: 2, mtime: 3, ctime: 4}
	c.record("/p", k, 0b01)
	c.record("/p", k, 0b10)
	if got := c.lookup("/p", k); got != 0b11 {
		t.Errorf("merged = %b", got)
	}
	k2 := k
	k2.ctime++
	if got := c.lookup("/p", k2); got != 0 {
		t.Errorf("another state = %b", got)
	}
	if got := c.lookup("/p", k); got != 0 {
		t.Errorf("stale entry kept: %b", got)
	}
	for i := 0; i < dirCacheMax+100; i++ {
		c.record(fmt.Sprintf("/d%d", i), k, 1)
	}
	if n := c.len(); n > dirCacheMax {
		t.Errorf("%d entries", n)
	}

	now := time.Now().UnixNano()
	sec := int64(time.Second)
	for _, tc := range []struct {
		m, c int64
		want bool
	}{
		{now - 3*sec, now - 3*sec, true},
		{now - 3*sec, now - sec, false}, // ctime too recent
		{now - sec, now - 3*sec, false}, // mtime too recent
		{now + sec, now - 3*sec, false}, // mtime in the future
		{now - 2*sec, now - 2*sec, false},
	} {
		if got := settled(dirKey{mtime: tc.m, ctime: tc.c}, now); got != tc.want {
			t.Errorf("settled(%d, %d) = %v", (tc.m-now)/sec, (tc.c-now)/sec, got)
		}
	}

	bits := fileBits([]string{"CLAUDE.md", "CODEX.md", "GEMINI.md", "CODEX.md"})
	if bits[0] != 1<<3 || bits[1] != 1<<6 || bits[2] != 1<<7 || bits[3] != bits[1] {
		t.Errorf("file bits %b", bits)
	}
	many := make([]string, 70)
	for i := range many {
		many[i] = fmt.Sprintf("F%d.md", i)
	}
	for i, b := range fileBits(many) {
		if b&claudeDirPresent != 0 || (i >= 63-len(candidateNames) && b != 0) {
			t.Errorf("file %d bit %b", i, b)
		}
	}
}

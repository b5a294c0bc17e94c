package instructions

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustWrite(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func benchResolve(b *testing.B, r *Resolver, root, target string, wantSources int) {
	b.Helper()
	ctx := context.Background()
	c, err := r.ResolveTarget(ctx, root, target)
	if err != nil || len(c.Sources) != wantSources {
		b.Fatalf("warm-up: %v, %d sources, want %d (%+v)", err, len(c.Sources), wantSources, c)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.ResolveTarget(ctx, root, target); err != nil {
			b.Fatal(err)
		}
	}
}

// deepTree writes the tree of BenchmarkResolveTargetDeep: a target 8
// directories below the root with three instruction files on the way and a
// global AGENTS.md. It returns the root, the agent dir and the target.
func deepTree(b *testing.B) (root, agent, target string) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	root = filepath.Join(base, "proj")
	agent = filepath.Join(base, "agent")
	mustWrite(b, filepath.Join(agent, "AGENTS.md"), "global rules\n")
	mustWrite(b, filepath.Join(root, "AGENTS.md"), strings.Repeat("root rule\n", 100))
	mustWrite(b, filepath.Join(root, "a/b/c/AGENTS.md"), strings.Repeat("package rule\n", 50))
	mustWrite(b, filepath.Join(root, "a/b/c/d/e/f/g/h/CLAUDE.md"), "leaf rule\n")
	target = "a/b/c/d/e/f/g/h/main.go"
	mustWrite(b, filepath.Join(root, target), "package main\n")
	return root, agent, target
}

// settle makes a freshly written tree look like a real checkout: every
// directory's mtime is set an hour back, and since ctime cannot be set, it
// waits until the ctimes are older than racyMargin. Only then may a
// Resolver trust its record of absent names (see dirCache).
func settle(b *testing.B, dirs ...string) {
	old := time.Now().Add(-time.Hour)
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				err = os.Chtimes(p, old, old)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(racyMargin + 100*time.Millisecond)
}

// BenchmarkResolveTargetDeep is the steady state: the same Resolver
// resolves a target in a tree whose directories are not being written to.
func BenchmarkResolveTargetDeep(b *testing.B) {
	root, agent, target := deepTree(b)
	settle(b, root, agent)
	r := New(Options{AgentDir: agent, Model: Model{Provider: "anthropic", ID: "claude-sonnet-4"}})
	benchResolve(b, r, root, target, 4)
}

// BenchmarkResolveTargetDeepFresh resolves as if at the moment the tree was
// written: no directory is old enough to cache, so every name is probed.
func BenchmarkResolveTargetDeepFresh(b *testing.B) {
	root, agent, target := deepTree(b)
	written := time.Now()
	r := New(Options{AgentDir: agent, Model: Model{Provider: "anthropic", ID: "claude-sonnet-4"}})
	r.now = func() time.Time { return written }
	benchResolve(b, r, root, target, 4)
	if n := r.dirs.len(); n != 0 {
		b.Fatalf("%d directories cached in a fresh tree", n)
	}
}

// bigTrees holds the generated trees for the whole process: building
// 100,000 files once per benchmark run is enough.
var bigTrees struct {
	sync.Mutex
	dirs map[int]string
}

// treeOf returns a project with n files in total, many of them beside the
// target's directories, and the same three instruction files.
func treeOf(b *testing.B, n int) string {
	bigTrees.Lock()
	defer bigTrees.Unlock()
	if d, ok := bigTrees.dirs[n]; ok {
		return d
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("instructions-tree%d-", n))
	if err != nil {
		b.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	root := filepath.Join(dir, "proj")
	files := []string{"AGENTS.md", "pkg/AGENTS.md", "pkg/sub/deep/CLAUDE.md", "pkg/sub/deep/x.go"}
	for _, f := range files {
		mustWrite(b, filepath.Join(root, f), "rules for "+f+"\n")
	}
	chainDirs := []string{"", "pkg", "pkg/sub", "pkg/sub/deep", "other", "other/x"}
	for _, d := range chainDirs {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	for i := len(files); i < n; i++ {
		d := chainDirs[i%len(chainDirs)]
		if err := os.WriteFile(filepath.Join(root, d, fmt.Sprintf("f%06d.go", i)), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if bigTrees.dirs == nil {
		bigTrees.dirs = map[int]string{}
	}
	settle(b, root)
	bigTrees.dirs[n] = root
	return root
}

func benchTree(b *testing.B, n int) {
	root := treeOf(b, n)
	r := New(Options{Model: Model{Provider: "openai", ID: "gpt-5"}})
	benchResolve(b, r, root, "pkg/sub/deep/x.go", 3)
}

func BenchmarkResolveTree10(b *testing.B)   { benchTree(b, 10) }
func BenchmarkResolveTree100k(b *testing.B) { benchTree(b, 100_000) }

// BenchmarkHugeSparseFile: a 1 GB (sparse) AGENTS.md costs a bounded read.
func BenchmarkHugeSparseFile(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	p := filepath.Join(root, "AGENTS.md")
	mustWrite(b, p, strings.Repeat("- keep it short\n", 4096)) // 64 KiB of text, then a hole
	if err := os.Truncate(p, 1<<30); err != nil {
		b.Fatal(err)
	}
	benchResolve(b, New(Options{}), root, "", 1)
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range bigTrees.dirs {
		os.RemoveAll(filepath.Dir(d))
	}
	os.Exit(code)
}

// BenchmarkProbe is the floor under the resolver: one stat of a missing
// candidate. A deep resolution is about 70 such system calls, so its time
// tracks the machine's system-call cost.
func BenchmarkProbe(b *testing.B) {
	dir := b.TempDir()
	var s sysCtx
	b.ReportAllocs()
	for b.Loop() {
		s.lstatIn(dir, "AGENTS.override.md")
	}
}

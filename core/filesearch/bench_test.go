package filesearch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// realCheckout makes a real git repository of n files in b's temp dir,
// one of them packages/api/handler.go, the files written (empty) and
// added with git update-index --index-info (git add of 100,000 files
// takes far longer), plus a few untracked files.
func realCheckout(b *testing.B, n int) string {
	b.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		b.Skip("no /bin/sh")
	}
	needGitB(b)
	start := time.Now()
	root := b.TempDir()
	gitOut(b, root, "init", "-q")
	blob := strings.TrimSpace(gitOut(b, root, "hash-object", "-w", "--stdin"))
	var list strings.Builder
	made := map[string]bool{}
	for i := range n {
		p := fmt.Sprintf("packages/mod%03d/internal/pkg%02d/file_%06d.go", i/1000, i/100%10, i)
		if i == n/2 {
			p = "packages/api/handler.go"
		}
		dir := filepath.Join(root, filepath.Dir(p))
		if !made[dir] {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			made[dir] = true
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&list, "100644 %s\t%s\n", blob, p)
	}
	cmd := gitCmd(root, "update-index", "--index-info")
	cmd.Stdin = strings.NewReader(list.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("update-index: %v %s", err, out)
	}
	write(b, root, map[string]string{"notes/todo.md": "", "scratch.txt": ""})
	syscall.Sync() // the writing back of 100,000 new files is not what is measured
	if d := time.Since(start); d > 2*time.Minute {
		b.Skipf("making the %d-file repository took %s: too slow a machine for this benchmark", n, d)
	}
	return root
}

func needGitB(b *testing.B) {
	if _, err := lookGit(); err != nil {
		b.Skip("git is not installed")
	}
}

// BenchmarkFirstResults: `@` then "h" in a real 100,000-file git
// checkout with nothing cached: list the tracked files, prepare the
// list, match. "git" is pi-tui's path (git found once per program, as the
// Cache does): Get returns once git has listed Limits.FirstBatch files;
// "git-whole" waits for every tracked file; "git-cold" finds git first
// (its version, then the repository's config for the hardening);
// "without-git" reads the index file. The untracked step is measured
// separately.
func BenchmarkFirstResults(b *testing.B) {
	root := realCheckout(b, 100_000)
	_, withGit := testGit(b, "")
	env := testEnv(b, "")
	cases := []struct {
		name  string
		find  func() GitFinder
		whole bool
	}{
		{"git", func() GitFinder { return withGit }, false},
		{"git-whole", func() GitFinder { return withGit }, true},
		{"git-cold", func() GitFinder { return SystemGit(func(k string) string { return env[k] }) }, false},
		{"without-git", func() GitFinder { return nil }, false},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c := NewCache(DefaultLimits(), tc.find())
				l, err := c.Get(b.Context(), root)
				if err != nil || !l.FromIndex {
					b.Fatalf("%v fromIndex=%v %q", err, l.FromIndex, l.Warning)
				}
				if tc.whole {
					if l, err = c.AddUntracked(b.Context(), l); err != nil || len(l.Paths) != 100_000 {
						b.Fatalf("%v %d paths", err, len(l.Paths))
					}
				}
				m := NewMatcher(l)
				m.Top("", 10)
				if top, _ := m.Top("h", 10); len(top) == 0 {
					b.Fatal("no match")
				}
				if l.rest != nil {
					b.StopTimer()
					<-l.rest.done // the listing goes on: not timed, not overlapping the next op
					b.StartTimer()
				}
			}
		})
	}
	for _, tc := range []struct {
		name string
		find GitFinder
	}{{"untracked-git", withGit}, {"untracked-without-git", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			c := NewCache(DefaultLimits(), tc.find)
			l, err := c.Get(b.Context(), root)
			if err == nil && l.Partial() {
				l, err = c.AddUntracked(b.Context(), l)
			}
			if err != nil || len(l.Paths) != 100_000 {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				u, err := c.AddUntracked(context.Background(), l)
				if err != nil || len(u.Paths) != 100_002 {
					b.Fatalf("%v %d paths", err, len(u.Paths))
				}
			}
		})
	}
}

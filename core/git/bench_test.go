package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// benchRepo is a repository of 200 files whose config names programs (so
// there are overrides to work out), one file changed.
func benchRepo(b *testing.B) (*Git, string) {
	files := map[string]string{".gitattributes": worktreetest.HostileAttributes}
	for i := range 200 {
		files[fmt.Sprintf("src/f%03d.go", i)] = "package src\n"
	}
	dir := filepath.Join(b.TempDir(), "repo")
	worktreetest.Repo(b, dir, files)
	worktreetest.Hostile(b, dir, filepath.Join(b.TempDir(), "marks"))
	worktreetest.Write(b, dir, "src/f000.go", "package src\n// changed\n")
	return find(b, nil), dir
}

// BenchmarkStatus is one `git status` as the session list runs it, for
// the cost of the hardening per call: cached overrides (the config
// unchanged since the last call: a few stats), uncached (a git rev-parse
// and a git config run first), the config changed (one git config run
// first), and unhardened (the fixed flags only, no overrides); and the
// cache check alone.
func BenchmarkStatus(b *testing.B) {
	g, dir := benchRepo(b)
	ctx := context.Background()
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=all"}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := g.Run(ctx, dir, args...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			g.mu.Lock()
			clear(g.guards)
			g.mu.Unlock()
			if _, err := g.Run(ctx, dir, args...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("config-changed", func(b *testing.B) {
		cfg := filepath.Join(dir, ".git", "config")
		for i := 0; b.Loop(); i++ {
			at := time.Unix(int64(1e9+i), 0)
			os.Chtimes(cfg, at, at) // a new ctime: the config is read again
			if _, err := g.Run(ctx, dir, args...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unhardened", func(b *testing.B) {
		for b.Loop() {
			if _, err := g.plain(ctx, dir, 1<<20, args...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("guard-cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := g.guardFor(ctx, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

type countingHost struct{ n int }

func (c *countingHost) ContextFile(context.Context, string) (toolpolicy.ContextFile, bool, error) {
	return toolpolicy.ContextFile{}, false, nil
}

func (c *countingHost) Preflight(ctx context.Context, target string) (toolpolicy.Claim, error) {
	c.n++
	return toolpolicy.Claim{Labels: []string{"AGENTS.md", "packages/api/AGENTS.md"}}, nil
}

// BenchmarkPreflightCacheHit is a file tool's preflight for a target
// already resolved in this prompt. Target: ≤ 1 µs/op.
func BenchmarkPreflightCacheHit(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(filepath.Join(root, "packages", "api"), 0o755)
	os.WriteFile(filepath.Join(root, "packages", "api", "handler.go"), []byte("x"), 0o644)
	host := &countingHost{}
	a := New(Config{Root: root, Preflight: host})
	ctx := context.Background()
	a.preflight(ctx, "packages/api/handler.go")
	b.ReportAllocs()
	for b.Loop() {
		if info, _ := a.preflight(ctx, "packages/api/handler.go"); info.Cache != "hit" {
			b.Fatal("miss")
		}
	}
	if host.n != 1 {
		b.Fatalf("the host was asked %d times", host.n)
	}
}

// BenchmarkPreflightSameDirectory is a hit for another file in a directory
// already resolved (canonical-directory key: a few syscalls).
func BenchmarkPreflightSameDirectory(b *testing.B) {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	os.MkdirAll(filepath.Join(root, "packages", "api"), 0o755)
	host := &countingHost{}
	a := New(Config{Root: root, Preflight: host})
	ctx := context.Background()
	a.preflight(ctx, "packages/api/a.go")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		a.claims = map[claimKey]claimEntry{{root: root, dir: filepath.Join(root, "packages", "api")}: {}}
		if info, _ := a.preflight(ctx, "packages/api/b.go"); info.Cache != "hit" {
			b.Fatal("miss")
		}
	}
}

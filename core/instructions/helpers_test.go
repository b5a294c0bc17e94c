package instructions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree is a project root and an agent directory in a fresh temp dir.
type tree struct {
	t     *testing.T
	base  string // canonical temp dir
	root  string // canonical project root
	agent string // canonical agent dir
	home  string // fake home containing .pi/agent
}

func newTree(t *testing.T) *tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tr := &tree{t: t, base: base, root: filepath.Join(base, "proj"), home: filepath.Join(base, "home")}
	tr.agent = filepath.Join(tr.home, ".pi", "agent")
	for _, d := range []string{tr.root, tr.agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// write creates a file (and its parents) relative to the root, or at an
// absolute path.
func (tr *tree) write(rel, content string) string {
	tr.t.Helper()
	p := tr.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

func (tr *tree) mkdir(rel string) string {
	tr.t.Helper()
	p := tr.abs(rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

func (tr *tree) symlink(target, rel string) string {
	tr.t.Helper()
	p := tr.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		tr.t.Fatal(err)
	}
	return p
}

func (tr *tree) abs(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(tr.root, rel)
}

func (tr *tree) resolver(m Model) *Resolver {
	return New(Options{AgentDir: tr.agent, Home: tr.home, Model: m})
}

func (tr *tree) target(m Model, target string) *Chain {
	tr.t.Helper()
	c, err := tr.resolver(m).ResolveTarget(context.Background(), tr.root, target)
	if err != nil {
		tr.t.Fatalf("ResolveTarget(%q): %v", target, err)
	}
	return c
}

func labels(c *Chain) []string {
	out := []string{}
	for _, s := range c.Sources {
		out = append(out, s.Label)
	}
	return out
}

func skipReason(c *Chain, path string) string {
	for _, s := range c.Skipped {
		if s.Path == path {
			return s.Reason
		}
	}
	return ""
}

func wantLabels(t *testing.T, c *Chain, want ...string) {
	t.Helper()
	got := labels(c)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sources = %q, want %q\nskipped: %+v\nwarnings: %q", got, want, c.Skipped, c.Warnings)
	}
}

func source(t *testing.T, c *Chain, label string) Source {
	t.Helper()
	for _, s := range c.Sources {
		if s.Label == label {
			return s
		}
	}
	t.Fatalf("no source %q in %q", label, labels(c))
	return Source{}
}

var (
	anthropic = Model{Provider: "anthropic", ID: "claude-sonnet-4"}
	openai    = Model{Provider: "openai", ID: "gpt-5"}
	noModel   = Model{}
)

package host_test

import (
	"context"
	"go/ast"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
)

// builders are the constructors of what the composition root owns: each
// is called by core/host or core/services only (tests and test helpers
// aside), so every
// program of a process shares one store, one registry, one session
// manager, one runtime manager and one broker
// (docs/adr/0041-composition-root.md).
var builders = map[string][]string{
	"github.com/pi-tui/pi-tui/store":          {"Open"},
	"github.com/pi-tui/pi-tui/core/services":  {"Open"},
	"github.com/pi-tui/pi-tui/core/registry":  {"NewRegistry", "NewTrust"},
	"github.com/pi-tui/pi-tui/core/memory":    {"NewService"},
	"github.com/pi-tui/pi-tui/core/sessions":  {"NewManager"},
	"github.com/pi-tui/pi-tui/core/worktree":  {"NewService"},
	"github.com/pi-tui/pi-tui/core/approvals": {"New"},
	"github.com/pi-tui/pi-tui/core/events":    {"New"},
	"github.com/pi-tui/pi-tui/core/runtimes":  {"New"},
	// One checkpoint store per process (its stat caches are shared by
	// every runtime of a project), and the review service over it.
	"github.com/pi-tui/pi-tui/core/checkpoints": {"Open"},
	"github.com/pi-tui/pi-tui/core/review":      {"New"},
}

// rootDirs may call the builders.
var rootDirs = []string{"core/host", "core/services"}

// TestOnlyTheRootBuildsTheServices reads every non-test Go file of the
// module and names each call of a builder outside the root.
func TestOnlyTheRootBuildsTheServices(t *testing.T) {
	fset, files := moduleSources(t, rootDirs)
	for _, sf := range files {
		for _, call := range builderCalls(sf.f) {
			t.Errorf("%s:%d calls %s: only the composition root (core/host) builds it; take it from the host", sf.rel, fset.Position(call.Pos()).Line, call.name)
		}
	}
}

type call struct {
	ast.Node
	name string
}

// builderCalls finds the calls of builders in f, by the names f gives
// their packages.
func builderCalls(f *ast.File) []call {
	names := map[string][]string{} // local package name → its builders
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		fns, ok := builders[path]
		if !ok {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = fns
	}
	var out []call
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		for _, fn := range names[pkg.Name] {
			if sel.Sel.Name == fn {
				out = append(out, call{c, pkg.Name + "." + fn})
			}
		}
		return true
	})
	return out
}

// The runtimes use the host's services, not copies: a session a program
// creates through the host is the one the runtimes open, and their events
// reach the broker the programs subscribe to. Close closes the store.
func TestTheRuntimesUseTheHostsServices(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	h, err := host.Open(ctx, paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Runtimes.Events() != h.Events {
		t.Fatal("the runtimes built services of their own")
	}
	p, _, err := h.Projects.Add(ctx, dir, "proj", false)
	if err != nil {
		t.Fatal(err)
	}
	// Created, not yet written: only the manager that created it knows it.
	s, err := h.Sessions.Create(ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Runtimes.Sessions().Open(ctx, s.ID()); err != nil {
		t.Errorf("the runtimes do not know the host's new session: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if _, err := h.Projects.List(ctx, true); err == nil {
		t.Error("the store is still open after Close")
	}
}

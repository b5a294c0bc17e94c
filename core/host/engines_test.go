package host_test

import (
	"go/ast"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
)

// enginePackages define the engines; they and the composition root
// (rootDirs, cmd/pi-tui) may name them. Everything else asks an engine's
// capabilities (core/engine), never its name
// (docs/adr/0083-the-engine-boundary.md).
var enginePackages = map[string]bool{
	"github.com/pi-tui/pi-tui/core/agent":    true,
	"github.com/pi-tui/pi-tui/core/piengine": true,
}

// namingDirs may name the engines: the root, the command, the engines.
var namingDirs = []string{"core/host", "cmd/pi-tui", "core/agent", "core/piengine"}

// TestNoPackageComparesEngineNames reads every non-test Go file outside
// namingDirs and names each place that decides by an engine's name: an
// engine package's Name, a comparison or a case with an engine's name
// as a string, a constant holding one, or a comparison with such a
// constant.
func TestNoPackageComparesEngineNames(t *testing.T) {
	names := host.DefaultEngines(paths.Places{}, nil).Names()
	if len(names) < 2 {
		t.Fatalf("the root registers %v: expected pi and the built-in engine", names)
	}
	fset, sources := moduleSources(t, namingDirs)
	files := make([]*ast.File, len(sources))
	for i, sf := range sources {
		files[i] = sf.f
	}
	held := engineConstants(files, names)
	for _, sf := range sources {
		for _, n := range nameChecks(sf.f, names, held) {
			t.Errorf("%s:%d %s: ask the engine's capabilities (engine.Descriptor.Caps) instead", sf.rel, fset.Position(n.Pos()).Line, n.what)
		}
	}
}

type check struct {
	ast.Node
	what string
}

// isEngineName reports whether e is a string literal naming an engine.
func isEngineName(e ast.Expr, names []string) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && slices.Contains(names, s)
}

// lastName is an identifier's name or a selector's last one.
func lastName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// engineConstants are the constants the files declare to hold an
// engine's name, by the literal or by another such constant (EnginePi =
// services.EnginePi), and say so in their own name: "pi" is pi-tui's
// word for more than the engine (a provider ready in pi is ByPi = "pi").
func engineConstants(files []*ast.File, names []string) map[string]bool {
	held := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				d, ok := n.(*ast.GenDecl)
				if !ok || d.Tok != token.CONST {
					return true
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if i >= len(vs.Values) || held[id.Name] || !strings.Contains(strings.ToLower(id.Name), "engine") {
							continue
						}
						if v := vs.Values[i]; isEngineName(v, names) || held[lastName(v)] {
							held[id.Name], changed = true, true
						}
					}
				}
				return true
			})
		}
	}
	return held
}

// nameChecks finds in f the places that name an engine.
func nameChecks(f *ast.File, names []string, held map[string]bool) []check {
	engineImports := map[string]string{} // local name → path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !enginePackages[path] {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		engineImports[name] = path
	}
	named := func(e ast.Expr) (string, bool) {
		switch {
		case isEngineName(e, names):
			return "the string " + e.(*ast.BasicLit).Value, true
		case held[lastName(e)]:
			return lastName(e) + ", which holds an engine's name", true
		}
		return "", false
	}
	var out []check
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if pkg, ok := x.X.(*ast.Ident); ok && engineImports[pkg.Name] != "" && x.Sel.Name == "Name" {
				out = append(out, check{x, "uses " + pkg.Name + ".Name"})
			}
		case *ast.BinaryExpr:
			if x.Op != token.EQL && x.Op != token.NEQ {
				return true
			}
			for _, side := range []ast.Expr{x.X, x.Y} {
				if what, ok := named(side); ok {
					out = append(out, check{x, "compares with " + what})
				}
			}
		case *ast.CaseClause:
			for _, e := range x.List {
				if what, ok := named(e); ok {
					out = append(out, check{e, "has a case of " + what})
				}
			}
		case *ast.ValueSpec:
			for _, v := range x.Values {
				if isEngineName(v, names) && strings.Contains(strings.ToLower(x.Names[0].Name), "engine") {
					out = append(out, check{v, "declares " + x.Names[0].Name + " as an engine's name"})
				}
			}
		}
		return true
	})
	return out
}

// builtinImporters may import the built-in engine's package (core/agent):
// the root registers it (agent.Describe), the command is the root's, and
// the runtime manager constructs it, with only what constructing takes
// (builtinConstruction). The rules both engines judge a tool call by are
// core/toolpolicy's, below both, so the pi engine's host side
// (core/bridge) and everything else take them from there
// (docs/adr/0093-tool-policy-package.md). Tests may import it: the
// bridge's parity tests run both engines side by side.
var builtinImporters = map[string]bool{"core/host": true, "cmd/pi-tui": true, "core/runtimes": true}

// builtinConstruction is what the runtime manager may take of core/agent.
var builtinConstruction = map[string]bool{"NewEngine": true, "Config": true}

// TestOnlyTheRootAndTheRuntimesImportTheBuiltInEngine reads every non-test
// Go file and names each that imports core/agent outside
// builtinImporters, and each use of core/agent in core/runtimes that is
// not constructing the engine.
func TestOnlyTheRootAndTheRuntimesImportTheBuiltInEngine(t *testing.T) {
	const agentPkg = "github.com/pi-tui/pi-tui/core/agent"
	fset, sources := moduleSources(t, []string{"core/agent"})
	for _, sf := range sources {
		name := ""
		for _, imp := range sf.f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == agentPkg {
				name = "agent"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		dir := path.Dir(sf.rel)
		if !builtinImporters[dir] {
			t.Errorf("%s imports %s, the built-in engine; take the rules both engines share from core/toolpolicy, and the engine from the runtimes", sf.rel, agentPkg)
			continue
		}
		if dir != "core/runtimes" {
			continue
		}
		ast.Inspect(sf.f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && !builtinConstruction[sel.Sel.Name] {
				t.Errorf("%s:%d uses agent.%s; the runtimes take only what constructing the built-in engine needs (agent.NewEngine, agent.Config), the shared rules from core/toolpolicy", sf.rel, fset.Position(sel.Pos()).Line, sel.Sel.Name)
			}
			return true
		})
	}
}

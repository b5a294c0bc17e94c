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

// engineImporters says, for each package that constructs an engine,
// which folders may import it in non-test files. The composition root
// registers the engines with their constructors
// (engine.Descriptor.Start) and the command is the root's; the runtime
// manager starts an engine only through its descriptor and asks the
// running one only what small interfaces of its own name, so it imports
// none of them (docs/adr/0094-engines-constructed-by-their-descriptor.md).
// core/pirun is the pi runtime: pi's engine with the bridge around it.
// core/providers runs pi's own login commands, in the environment pi's
// engine gives pi (piengine.CommandEnv). The rules both engines judge a
// tool call by are core/toolpolicy's, below both
// (docs/adr/0093-tool-policy-package.md). Tests may import any: the
// bridge's parity tests run both engines side by side, the runtimes'
// tests register the engines as the root does.
var engineImporters = map[string]map[string]bool{
	"github.com/pi-tui/pi-tui/core/agent":    {"core/host": true, "cmd/pi-tui": true},
	"github.com/pi-tui/pi-tui/core/piengine": {"core/host": true, "cmd/pi-tui": true, "core/pirun": true, "core/providers": true},
	"github.com/pi-tui/pi-tui/core/bridge":   {"core/host": true, "cmd/pi-tui": true, "core/pirun": true},
	"github.com/pi-tui/pi-tui/core/pirun":    {"core/host": true, "cmd/pi-tui": true},
}

// TestOnlyTheRootImportsTheEngines reads every non-test Go file and names
// each that imports a package constructing an engine (engineImporters)
// from a folder not allowed to.
func TestOnlyTheRootImportsTheEngines(t *testing.T) {
	_, sources := moduleSources(t, nil)
	for _, sf := range sources {
		dir := path.Dir(sf.rel)
		for _, imp := range sf.f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			allowed, ok := engineImporters[p]
			if !ok || allowed[dir] {
				continue
			}
			t.Errorf("%s imports %s, which constructs an engine; start engines through their descriptor (engine.Descriptor.Start, set by core/host) and take the rules both engines share from core/toolpolicy", sf.rel, p)
		}
	}
}

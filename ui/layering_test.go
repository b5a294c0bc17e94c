package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// uiImports lists each ui package with what it imports, as go list reads
// them; tests adds what its test files import.
func uiImports(t *testing.T, tests bool) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the ui packages: %v", err)
	}
	format := `{{.ImportPath}} {{join .Imports " "}}`
	if tests {
		format = `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`
	}
	cmd := exec.Command(goTool, "list", "-f", format, "./ui/...")
	cmd.Dir = ".." // the module root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			imports := fields[1:]
			slices.Sort(imports)
			pkgs[fields[0]] = slices.Compact(imports)
		}
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list named %d ui packages, expected the shell and its screens:\n%s", len(pkgs), out)
	}
	return pkgs
}

// The UI gets services from the host core, never the store (ui → core →
// store; docs/adr/0041-composition-root.md): no ui package imports the
// store package. go list reads the packages as the build sees them, test
// files aside.
func TestNoUIPackageImportsTheStore(t *testing.T) {
	t.Parallel()
	const storePkg = "github.com/pi-tui/pi-tui/store"
	for pkg, imports := range uiImports(t, false) {
		for _, imp := range imports {
			if imp == storePkg {
				t.Errorf("%s imports %s; take what it needs from the host core's services (core/host) instead", pkg, storePkg)
			}
		}
	}
}

// The UI knows the engines only through the contract (core/engine: an
// engine's capabilities) and reads what they write through the entry
// vocabulary (core/entries), so it shows a session the same whichever
// engine runs it (docs/adr/0083-the-engine-boundary.md): no ui package,
// nor its tests, imports an engine's package.
func TestNoUIPackageImportsAnEngine(t *testing.T) {
	t.Parallel()
	engines := map[string]string{
		"github.com/pi-tui/pi-tui/core/agent":    "the built-in engine",
		"github.com/pi-tui/pi-tui/core/piengine": "the pi engine",
	}
	for pkg, imports := range uiImports(t, true) {
		for _, imp := range imports {
			if what, ok := engines[imp]; ok {
				t.Errorf("%s imports %s (%s); use core/entries for what a session holds and core/engine (the host's Engines, runtimes.Manager.EngineOf) for what an engine can do", pkg, imp, what)
			}
		}
	}
}

// Each screen gets the small interfaces it asks of the runtimes, defined
// where they are asked (docs/adr/0090-interfaces-where-consumed.md); only
// the composition, the ui root, holds the runtime manager and hands its
// parts out. So no ui package declares a field, parameter, result or
// variable of type runtimes.Manager, and none but the root reaches the
// manager through the host (h.Runtimes). ui/internal is test support,
// which hands tests the host's parts.
func TestNoUIPackageHoldsTheRuntimeManager(t *testing.T) {
	t.Parallel()
	const runtimesPkg = "github.com/pi-tui/pi-tui/core/runtimes"
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (path == "internal" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		name := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == runtimesPkg {
				name = "runtimes"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		isManager := func(e ast.Expr) bool {
			if s, ok := e.(*ast.StarExpr); ok {
				e = s.X
			}
			sel, ok := e.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Manager" {
				return false
			}
			x, ok := sel.X.(*ast.Ident)
			return ok && name != "" && x.Name == name
		}
		root := filepath.Dir(path) == "."
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field: // struct fields, parameters and results
				if isManager(n.Type) {
					t.Errorf("%s: declares a runtimes.Manager; define the interface the screen asks of it where it is asked, and have the Session tab pass the manager or its part", fset.Position(n.Pos()))
				}
			case *ast.ValueSpec:
				if n.Type != nil && isManager(n.Type) {
					t.Errorf("%s: declares a runtimes.Manager variable", fset.Position(n.Pos()))
				}
			case *ast.SelectorExpr:
				if n.Sel.Name == "Runtimes" && !root {
					t.Errorf("%s: reaches the runtime manager (.Runtimes); take the interface the screen asks of it from the composition instead", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read %d ui source files, expected the shell and its screens", files)
	}
}

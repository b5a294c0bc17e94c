package host_test

import (
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoPackageNeedsAnAlias reads every Go file of the module, tests
// included, and names each import of one of the module's packages under
// another name, and each package whose name is a top-level standard
// library package's (docs/adr/0042-package-names.md): a name that collides is
// renamed, not aliased around.
func TestNoPackageNeedsAnAlias(t *testing.T) {
	module, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "github.com/pi-tui/pi-tui/"
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(module, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		if name := strings.TrimSuffix(f.Name.Name, "_test"); name != "main" && isStandard(name) {
			t.Errorf("%s: package %s shadows the standard library's %s", rel, f.Name.Name, name)
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if imp.Name == nil || !strings.HasPrefix(ip, prefix) || imp.Name.Name == "_" {
				continue
			}
			if imp.Name.Name != path.Base(ip) {
				t.Errorf("%s:%d imports %s as %s: rename what collides instead", rel, fset.Position(imp.Pos()).Line, ip, imp.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read only %d Go files: is the module two folders up?", files)
	}
}

// isStandard reports whether name is a top-level standard library
// package (runtime, errors, context, …): the ones a file imports by that
// name without thinking.
func isStandard(name string) bool {
	fi, err := os.Stat(filepath.Join(build.Default.GOROOT, "src", name))
	return err == nil && fi.IsDir() && name != "cmd" && name != "internal" && name != "vendor"
}

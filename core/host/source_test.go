package host_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sourceFile is one non-test Go file of the module, parsed.
type sourceFile struct {
	rel string // module-relative, slash-separated
	f   *ast.File
}

// moduleSources parses every non-test Go file of the module but those in
// hidden folders, test data, vendored code, the test helpers (storetest,
// uitest, …, which only tests import) and the folders skip names
// (module-relative, with what is below them).
func moduleSources(t *testing.T, skip []string) (*token.FileSet, []sourceFile) {
	t.Helper()
	module, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(module, "go.mod")); err != nil {
		t.Fatalf("the module root is not two folders up: %v", err)
	}
	fset := token.NewFileSet()
	var out []sourceFile
	err = filepath.WalkDir(module, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "third_party" || strings.HasSuffix(name, "test") || slices.Contains(skip, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, sourceFile{rel: rel, f: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("read %d files; the walk missed the module", len(out))
	}
	return fset, out
}

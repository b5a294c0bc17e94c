package registry_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/registry"
)

// A path given for a project of several folders is found in its folder:
// NAME:path, an absolute path (through a link to the folder too), or a
// path relative to where the caller resolves from (the primary root, or a
// session's worktree); a path in the primary root is left to its chain.
func TestFolderTarget(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	api, web, wt := filepath.Join(base, "api"), filepath.Join(base, "web"), filepath.Join(base, "data", "wt", "s1")
	for _, d := range []string{api, web, wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(web, filepath.Join(base, "web-link")); err != nil {
		t.Fatal(err)
	}
	p := registry.Project{Root: api, Folders: []registry.Folder{{Name: "api", Path: api}, {Name: "web", Path: web}}}
	for _, c := range []struct{ given, from, want string }{
		{"web:src/app.ts", api, filepath.Join(web, "src", "app.ts")},
		{"WEB:src/app.ts", wt, filepath.Join(web, "src", "app.ts")},
		{filepath.Join(web, "src", "app.ts"), api, filepath.Join(web, "src", "app.ts")},
		{filepath.Join(base, "web-link", "src", "app.ts"), api, filepath.Join(web, "src", "app.ts")},
		{"../web/src/app.ts", api, filepath.Join(web, "src", "app.ts")},
		{"../../../web/src/app.ts", wt, filepath.Join(web, "src", "app.ts")},
		{"../web/src/app.ts", wt, ""}, // relative to the worktree: not in web
		{"src/main.go", api, ""},
		{"api:src/main.go", api, ""}, // the primary root's own chain
		{"nowhere:x", api, ""},
	} {
		f, got, ok := p.FolderTarget(c.given, c.from)
		if c.want == "" {
			if ok {
				t.Errorf("%q from %s: found in %s as %s, want the primary root's", c.given, c.from, f.Name, got)
			}
			continue
		}
		if !ok || f.Name != "web" || got != c.want {
			t.Errorf("%q from %s: %v %q %q, want web %q", c.given, c.from, ok, f.Name, got, c.want)
		}
	}
}

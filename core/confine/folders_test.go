package confine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two folders: a path reaches the second by NAME:path, absolutely or by
// a ../ that lands in it, and is confined there as in the root: a link
// out of it (to a third folder, or into the primary root) is refused,
// and so is anything outside both.
func TestFoldersResolve(t *testing.T) {
	api, web, outside := tempRoot(t), tempRoot(t), tempRoot(t)
	os.WriteFile(filepath.Join(web, "app.ts"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.WriteFile(filepath.Join(api, "main.go"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(api, "web:x"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(web, "out"))
	os.Symlink(api, filepath.Join(web, "toapi"))
	os.Symlink(filepath.Join(web, "app.ts"), filepath.Join(api, "toweb"))
	fs := Folders{{Name: "api", Root: api}, {Name: "web", Root: web}}

	for p, want := range map[string]struct {
		i     int
		canon string
		label string
	}{
		"main.go":                    {0, filepath.Join(api, "main.go"), "main.go"},
		"web:app.ts":                 {1, filepath.Join(web, "app.ts"), "web:app.ts"},
		"WEB:new/file.ts":            {1, filepath.Join(web, "new/file.ts"), "web:new/file.ts"},
		"web:":                       {1, web, "web:"},
		filepath.Join(web, "app.ts"): {1, filepath.Join(web, "app.ts"), "web:app.ts"},
		"./web:x":                    {0, filepath.Join(api, "web:x"), "./web:x"},
		"api:x":                      {0, filepath.Join(api, "api:x"), "./api:x"}, // the primary's name is no prefix
	} {
		pl, err := fs.Resolve(p)
		if err != nil || pl.Index != want.i || pl.Canon != want.canon || pl.Label() != want.label {
			t.Errorf("Resolve(%q) = %d %q %q, %v; want %+v", p, pl.Index, pl.Canon, pl.Label(), err, want)
		}
	}
	// Relative to the primary root, a ../ that lands in the second folder
	// is in it.
	rel, _ := filepath.Rel(api, filepath.Join(web, "app.ts"))
	if pl, err := fs.Resolve(rel); err != nil || pl.Index != 1 {
		t.Errorf("Resolve(%q) = %+v, %v", rel, pl, err)
	}
	for _, p := range []string{"web:out/secret", "web:out/new", "web:toapi/main.go", "toweb", "web:../x", "web:/etc/passwd",
		filepath.Join(outside, "secret"), "../x", filepath.Join(web, "out", "secret")} {
		if pl, err := fs.Resolve(p); err == nil {
			t.Errorf("Resolve(%q) allowed %s", p, pl.Canon)
		} else if strings.Contains(p, "secret") && !strings.Contains(err.Error(), "outside") {
			t.Errorf("Resolve(%q): %v, want it called outside", p, err)
		}
	}
}

// A project of one folder reads every path as Path does, "NAME:" forms
// included: a file named web:x stays a file.
func TestSingleFolderIsPath(t *testing.T) {
	root := tempRoot(t)
	fs := Single(root)
	for _, p := range []string{"web:x", "a/b", "", "../x", "/etc"} {
		want, werr := Path(root, p)
		pl, err := fs.Resolve(p)
		if pl.Canon != want || (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Errorf("Resolve(%q) = %q, %v; Path gives %q, %v", p, pl.Canon, err, want, werr)
		}
	}
}

// A file whose name starts with two dots is the root's, and written
// relative to it.
func TestRelDotDotName(t *testing.T) {
	if got := Rel("/r", "/r/..x"); got != "..x" {
		t.Errorf("Rel = %q", got)
	}
	if got := Rel("/r", "/s/x"); got != "/s/x" {
		t.Errorf("Rel outside = %q", got)
	}
}

// A path that lies in no folder as written is refused even when its links
// lead into one: through a link beside the folders, neither a folder gone
// from disk (which pi's write would make again) nor a link leaving its
// folder may be reached.
func TestPathThroughNoFolderIsRefused(t *testing.T) {
	parent := tempRoot(t)
	api, web := filepath.Join(parent, "api"), filepath.Join(parent, "web")
	os.MkdirAll(filepath.Join(web, "s"), 0o755)
	os.MkdirAll(api, 0o755)
	os.Symlink(parent, filepath.Join(parent, "out"))
	os.Symlink(filepath.Join(web, "s"), filepath.Join(api, "lnk"))
	fs := Folders{{Name: "api", Root: api}, {Name: "web", Root: web}}
	if pl, err := fs.Resolve("lnk"); err == nil {
		t.Errorf("Resolve(lnk) allowed %s", pl.Canon)
	}
	if pl, err := fs.Resolve("../out/api/lnk"); err == nil || !strings.Contains(err.Error(), "outside every folder") {
		t.Errorf("Resolve(../out/api/lnk) = %s, %v; want it outside every folder", pl.Canon, err)
	}
	os.RemoveAll(web)
	if pl, err := fs.Resolve("../out/web/x"); err == nil {
		t.Errorf("Resolve(../out/web/x) with web gone allowed %s", pl.Canon)
	}
	if _, err := os.Stat(web); err == nil {
		t.Error("resolving made the missing folder")
	}
}

package filesearch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// @ completion in a project of several folders offers the primary root's
// files first, then each other folder's in order, written NAME:path; a
// query written NAME:text looks in that folder alone.
func TestTopAcrossPrimaryFirstThenEachFolder(t *testing.T) {
	api := NewMatcher(newList("/src/api", []string{"cmd/app.go", "app_test.go", "README.md"}))
	web := NewMatcher(newList("/src/web", []string{"src/app.ts", "src/app.css", "package.json"}))
	ops := NewMatcher(newList("/ops", []string{"app.tf"}))
	sources := []Source{{Matcher: api}, {Name: "web", Matcher: web}, {Name: "ops", Matcher: ops}}
	paths := func(ms []Match) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Path)
		}
		return out
	}
	top, total := TopAcross(sources, "app", 50)
	got := paths(top)
	if total != 5 || len(got) != 5 || got[2] != "web:src/app.ts" && got[2] != "web:src/app.css" || got[4] != "ops:app.tf" {
		t.Fatalf("app: %q (%d)", got, total)
	}
	for i, p := range got {
		if i < 2 && strings.Contains(p, ":") || i >= 2 && !strings.Contains(p, ":") {
			t.Errorf("the primary root's matches must come first, unprefixed: %q", got)
		}
	}
	// The menu holds n; the rest are counted.
	if top, total := TopAcross(sources, "app", 3); len(top) != 3 || total != 5 || !strings.HasPrefix(top[2].Path, "web:") {
		t.Errorf("n=3: %q %d", paths(top), total)
	}
	// NAME: narrows to that folder (ignoring case).
	if top, total := TopAcross(sources, "WEB:css", 50); !slices.Equal(paths(top), []string{"web:src/app.css"}) || total != 1 {
		t.Errorf("web:css: %q %d", paths(top), total)
	}
	// A folder whose list is not loaded yet offers nothing yet.
	sources[1].Matcher = nil
	if top, _ := TopAcross(sources, "app", 50); slices.ContainsFunc(top, func(m Match) bool { return strings.HasPrefix(m.Path, "web:") }) {
		t.Errorf("unloaded folder: %q", paths(top))
	}
	// A name that is no folder's is text to match in the primary root.
	if top, _ := TopAcross(sources, "cmd:x", 50); len(top) != 0 {
		t.Errorf("cmd:x: %q", paths(top))
	}
}

// @NAME:path attaches a file of that folder, opened through an os.Root on
// it (no link leads out, .. does not climb into the primary root); an
// absolute path in a folder works too; the primary root's @path is as
// before.
func TestAttachInReadsEachFolderConfined(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	api, web := filepath.Join(base, "api"), filepath.Join(base, "web")
	write(t, api, map[string]string{"main.go": "package main\n", "web:odd.txt": "primary's own odd name\n"})
	write(t, web, map[string]string{"src/app.ts": "export {}\n", "my notes.md": "notes"})
	if err := os.Symlink(filepath.Join(api, "main.go"), filepath.Join(web, "out")); err != nil {
		t.Fatal(err)
	}
	others := []Folder{{Name: "web", Root: web}}
	msg := `see @main.go @web:src/app.ts @"web:my notes.md" @WEB:src/app.ts @` + filepath.Join(web, "src", "app.ts") +
		` @web:out @web:../api/main.go @./web:odd.txt @nope:x`
	got, report := AttachIn(context.Background(), api, others, msg, DefaultAttachLimits())
	var names []string
	for _, a := range report {
		names = append(names, a.Path)
	}
	if !slices.Equal(names, []string{"main.go", "web:src/app.ts", "web:my notes.md", "./web:odd.txt"}) {
		t.Errorf("attached %q", names)
	}
	for _, want := range []string{
		`<file name="` + filepath.Join(web, "src", "app.ts") + `">` + "\nexport {}\n",
		`<file name="` + filepath.Join(web, "my notes.md") + `">`,
		`<file name="` + filepath.Join(api, "main.go") + `">`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Count(got, "package main") != 1 || strings.Count(got, "export {}") != 1 {
		t.Errorf("a file attached twice, or through a link out of its folder:\n%s", got)
	}
}

package filesearch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// Outside git the folder is walked honouring .gitignore files: globs,
// negation, folder-only and anchored patterns, "**", nested files;
// node_modules is listed unless ignored; .git, FIFOs and links to folders
// are never entered.
func TestWalkHonoursGitignore(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore":                "*.log\n!keep.log\n/top.txt\nbuild/\ndocs/**/draft.md\n\\#hash\n",
		"a.log":                     "",
		"keep.log":                  "",
		"top.txt":                   "",
		"sub/top.txt":               "",
		"build/x.go":                "",
		"sub/build":                 "a file named build is not a folder\n",
		"docs/a/b/draft.md":         "",
		"docs/final.md":             "",
		"#hash":                     "",
		"node_modules/dep/index.js": "",
		"vendor/.gitignore":         "*.go\n!keep.go\n",
		"vendor/x.go":               "",
		"vendor/keep.go":            "",
		".git/config":               "",
		"secret.env":                "",
	})
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	write(t, outside, map[string]string{"far.go": ""})
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	l, err := Build(context.Background(), root, DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "docs/final.md", "keep.log", "linkdir", "node_modules/dep/index.js",
		"secret.env", "sub/build", "sub/top.txt", "vendor/.gitignore", "vendor/keep.go"}
	got := slices.Sorted(slices.Values(l.Paths))
	if l.FromIndex || !slices.Equal(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}

	write(t, root, map[string]string{".gitignore": "node_modules\n"})
	l, _ = Build(context.Background(), root, DefaultLimits(), nil)
	if slices.Contains(l.Paths, "node_modules/dep/index.js") {
		t.Fatal("an ignored node_modules was listed")
	}

	small := DefaultLimits()
	small.MaxFiles = 3
	l, _ = Build(context.Background(), root, small, nil)
	if len(l.Paths) != 3 || !l.Truncated {
		t.Fatalf("cap: %d paths, truncated=%v", len(l.Paths), l.Truncated)
	}
}

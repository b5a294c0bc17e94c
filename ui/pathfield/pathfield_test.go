package pathfield

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// List completes from the root, files only when asked, hidden names only
// when typed, as typed (~ kept); and lists nothing outside the root,
// saying so, whether by .., an absolute path or a link.
func TestList(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(home, "repo")
	for _, p := range []string{"repo/src/main.go", "repo/src/util/x.go", "repo/.git/HEAD", "repo/README.md", "outside/secret"} {
		os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(home, p), nil, 0o644)
	}
	os.Symlink(filepath.Join(home, "outside"), filepath.Join(root, "link"))

	in := Options{Home: home, Root: root, Files: true}
	for typed, want := range map[string][]string{
		"":              {"README.md", "link/", "src/"},
		"src/":          {"src/main.go", "src/util/"},
		".g":            {".git/"},
		"~/repo/src/u":  {"~/repo/src/util/"},
		"src/../src/ma": {"src/../src/main.go"},
	} {
		got, problem := List(typed, in)
		if problem != "" || !reflect.DeepEqual(got, want) {
			t.Errorf("List(%q) = %q, %q; want %q", typed, got, problem, want)
		}
	}
	for _, typed := range []string{"../", "link/", filepath.Join(home, "outside") + "/", "~/"} {
		got, problem := List(typed, in)
		if len(got) > 0 || !strings.Contains(problem, "inside the project only") {
			t.Errorf("List(%q) = %q, %q: listed outside the project", typed, got, problem)
		}
	}
	// Folders only, from the working directory, without a root (the add
	// dialog).
	got, _ := List("~/repo/", Options{Home: home})
	if !reflect.DeepEqual(got, []string{"~/repo/link/", "~/repo/src/"}) {
		t.Errorf("folders only: %q", got)
	}
}

// ~ alone completes to ~/ (it panicked, slicing the typed text by the
// expanded path's length), and a folder typed with ~ and a slash lists
// its inside (it took the folder's name for a prefix).
func TestListTilde(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, "src", "api"), 0o755)
	for typed, want := range map[string][]string{"~": {"~/"}, "~/": {"~/src/"}, "~/src/": {"~/src/api/"}} {
		if got, _ := List(typed, Options{Home: home}); !reflect.DeepEqual(got, want) {
			t.Errorf("List(%q) = %q, want %q", typed, got, want)
		}
	}
}

// Package guardtest builds the repositories the run-on-use guard is
// tested on (core/toolpolicy), for its own tests and for the engines',
// which run the same writes end to end. Only tests import it.
package guardtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// Piece is one write of an assembled git directory.
type Piece struct{ Path, Content string }

// AssembledRepo is what issue 28 reports a model writing without
// approval, in its order: a common dir whose config names a pager and an
// fsmonitor (each would leave a file in marks), its objects/ and refs/,
// and beside it newrepo/, whose HEAD and commondir make it a git
// directory reading that config.
func AssembledRepo(root, marks string) []Piece {
	config := fmt.Sprintf("[core]\n\tbare = false\n\tworktree = %s\n\tpager = \"touch '%s'; cat\"\n\tfsmonitor = \"touch '%s'; false\"\n",
		filepath.Join(root, "wt"), filepath.Join(marks, "pager"), filepath.Join(marks, "fsmonitor"))
	return []Piece{
		{"bare2/config", config},
		{"bare2/objects/info/.keep", ""},
		{"bare2/refs/heads/.keep", ""},
		{"newrepo/HEAD", "ref: refs/heads/main\n"},
		{"newrepo/commondir", "../bare2\n"},
	}
}

// GitSees reports whether git, run in dir, takes dir itself for its git
// directory: `git rev-parse --absolute-git-dir` with no configuration but
// the folder's, discovery stopped above dir, and pager and fsmonitor
// overridden (rev-parse runs neither; this keeps it so).
func GitSees(t *testing.T, dir string) bool {
	t.Helper()
	cmd := exec.Command("git", "-c", "core.pager=cat", "-c", "core.fsmonitor=false", "rev-parse", "--absolute-git-dir")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir), "GIT_PAGER=cat", "PAGER=cat"}
	out, err := cmd.Output()
	return err == nil && strings.TrimSpace(string(out)) == dir
}

func WritePiece(t *testing.T, root string, p Piece) {
	t.Helper()
	full := filepath.Join(root, filepath.FromSlash(p.Path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(p.Content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// IncludeRepo makes a real repository whose .git/config includes a
// tracked file, devtools/git.cfg, that moves the hooks to tools/hooks, and
// a linked worktree of it. git itself is asked where the hooks are, so
// the test fails if the layout stops meaning what the guard is tested on.
func IncludeRepo(t *testing.T) (main, wt string) {
	t.Helper()
	worktreetest.Need(t)
	base := TempRoot(t)
	main, wt = filepath.Join(base, "main"), filepath.Join(base, "wt")
	worktreetest.Repo(t, main, map[string]string{
		"devtools/git.cfg":       "[core]\n\thooksPath = tools/hooks\n",
		"tools/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
		"src/a.go":               "package src\n",
	})
	worktreetest.Git(t, main, "config", "include.path", "../devtools/git.cfg")
	worktreetest.Git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	for _, root := range []string{main, wt} {
		if got := strings.TrimSpace(worktreetest.Git(t, root, "config", "core.hooksPath")); got != "tools/hooks" {
			t.Fatalf("%s: git reads core.hooksPath = %q through the include", root, got)
		}
	}
	return main, wt
}

// HooksRepo makes a real repository whose config moves its hooks to
// .githooks/ (as husky does), with a committed hook, and a linked worktree
// of it (git worktree add), as a worktree session works in.
func HooksRepo(t *testing.T) (main, wt string) {
	t.Helper()
	worktreetest.Need(t)
	base := TempRoot(t)
	main, wt = filepath.Join(base, "main"), filepath.Join(base, "wt")
	worktreetest.Repo(t, main, map[string]string{".githooks/pre-commit": "#!/bin/sh\nexit 0\n", "src/a.go": "package src\n"})
	worktreetest.Git(t, main, "config", "core.hooksPath", ".githooks")
	worktreetest.Git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	for _, root := range []string{main, wt} {
		// A planted repository's shape (makesGitDir).
		for _, d := range []string{"vendor2/objects", "vendor2/refs"} {
			os.MkdirAll(filepath.Join(root, d), 0o755)
		}
		os.WriteFile(filepath.Join(root, "vendor2", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	}
	return main, wt
}

// Read returns the content of the file at p.
func Read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Returns runs f and waits for it. A call that blocks fails the test
// shortly before the test binary's own deadline instead of hanging the
// whole package; there is no other time limit.
func Returns[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	var limit <-chan time.Time
	if d, ok := t.Deadline(); ok {
		limit = time.After(time.Until(d) * 9 / 10)
	}
	select {
	case v := <-done:
		return v
	case <-limit:
		t.Fatalf("%s blocked", what)
	}
	var zero T
	return zero
}

// TempRoot is a temporary folder by its canonical path (the guard
// decides on canonical paths).
func TempRoot(t testing.TB) string {
	t.Helper()
	d, _ := filepath.EvalSymlinks(t.TempDir())
	return d
}

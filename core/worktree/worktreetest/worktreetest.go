// Package worktreetest makes real git repositories for tests of worktree
// sessions, with an identity and configuration of their own so commits
// work on a clean machine.
package worktreetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Need skips the test when git is not installed.
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; worktree sessions need it")
	}
}

// Env is the environment git gets in tests: the PATH, a home of its own
// (no user configuration) and a commit identity.
func Env(t testing.TB) func(string) string {
	home := t.TempDir()
	vars := map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
	}
	return func(k string) string { return vars[k] }
}

// Git runs git in dir with the test identity and returns its output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	full := append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main",
		"-c", "commit.gpgsign=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	env := Env(t)
	cmd.Env = []string{"PATH=" + env("PATH"), "HOME=" + env("HOME"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Repo makes a git repository at dir on branch main with files (path →
// content) in one first commit.
func Repo(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, body := range files {
		Write(t, dir, p, body)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "first")
}

// Write writes a file under dir, making its folders.
func Write(t testing.TB, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

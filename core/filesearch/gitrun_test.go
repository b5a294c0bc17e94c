package filesearch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// execGit runs the git on the PATH the way core/git hardens it, for the
// tests of this package: a clean environment (the global config named by
// the test), no fsmonitor, no hooks.
type execGit struct{ env []string }

func (g execGit) Command(ctx context.Context, dir string, args ...string) (*exec.Cmd, error) {
	full := append([]string{"-C", dir, "--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
		"-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = g.env
	return cmd, nil
}

// testGit returns a Git whose global configuration is the file global
// ("" for none), and a finder for it.
func testGit(t testing.TB, global string) (Git, GitFinder) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if global == "" {
		global = os.DevNull
	}
	g := execGit{env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LC_ALL=C",
		"GIT_CONFIG_GLOBAL=" + global, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0"}}
	return g, func(context.Context) (Git, error) { return g, nil }
}

// globalConfig writes a global git config naming excludes as
// core.excludesFile, and returns its path.
func globalConfig(t testing.TB, excludes string) string {
	t.Helper()
	dir := t.TempDir()
	ex := filepath.Join(dir, "ignore")
	cfg := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(ex, []byte(excludes), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[core]\n\texcludesFile = "+ex+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

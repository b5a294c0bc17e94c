package filesearch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// testGit returns the user's git as pi-tui runs it (SystemGit), with the
// global configuration in the file global ("" for none) and a home of
// its own.
func testGit(t testing.TB, global string) (Git, GitFinder) {
	t.Helper()
	if _, err := lookGit(); err != nil {
		t.Skip("git is not installed")
	}
	env := testEnv(t, global)
	find := SystemGit(func(k string) string { return env[k] })
	g, err := find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return g, func(context.Context) (Git, error) { return g, nil }
}

func lookGit() (string, error) { return exec.LookPath("git") }

// testEnv is the environment the tests give git: the process's PATH, a
// home of its own, the global configuration in the file global ("" for
// none) and no system one.
func testEnv(t testing.TB, global string) map[string]string {
	if global == "" {
		global = os.DevNull
	}
	return map[string]string{"PATH": os.Getenv("PATH"), "HOME": t.TempDir(), "GIT_CONFIG_GLOBAL": global, "GIT_CONFIG_NOSYSTEM": "1"}
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

// noGit is a finder whose PATH holds no git, as on a machine without it.
func noGit(t testing.TB) GitFinder {
	empty := t.TempDir()
	return SystemGit(func(k string) string {
		if k == "PATH" {
			return empty
		}
		return ""
	})
}

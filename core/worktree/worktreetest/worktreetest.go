// Package worktreetest makes real git repositories for tests of worktree
// sessions, with an identity and configuration of their own so commits
// work on a clean machine.
package worktreetest

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// Git runs git in dir with the test identity and returns its output. A
// commit does not start git's automatic maintenance (a process of its own
// after every commit, with nothing to do in a test's repository).
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := git(dir, Env(t)("HOME"), args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func git(dir, home string, args ...string) ([]byte, error) {
	full := append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main",
		"-c", "commit.gpgsign=false", "-c", "maintenance.auto=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com"}
	return cmd.CombinedOutput()
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
	Init(t, dir)
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "-m", "first")
}

// Init makes dir (which must exist) an empty repository on branch main,
// as git init -b main does: it copies the .git that git init made once
// for the test binary, which costs a few file writes instead of a git
// process (git init copies its templates too, and is the slowest step of
// making a repository).
func Init(t testing.TB, dir string) {
	t.Helper()
	files, err := emptyGitDir()
	if err != nil {
		t.Fatalf("worktreetest: git init: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(dir, ".git", f.rel)
		if f.dir {
			err = os.MkdirAll(p, f.mode)
		} else {
			err = os.WriteFile(p, f.data, f.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// gitDirFile is a file or folder of an empty repository's .git.
type gitDirFile struct {
	rel  string // parents before children
	dir  bool
	mode fs.FileMode
	data []byte
}

// emptyGitDir is what git init -b main made in an empty folder, read once
// per test binary.
var emptyGitDir = sync.OnceValues(func() ([]gitDirFile, error) {
	tmp, err := os.MkdirTemp("", "worktreetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if out, err := git(tmp, tmp, "init", "-q", "-b", "main", "repo"); err != nil {
		return nil, fmt.Errorf("%w: %s", err, out)
	}
	var files []gitDirFile
	root := filepath.Join(tmp, "repo", ".git")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		f := gitDirFile{rel: rel, dir: d.IsDir(), mode: fi.Mode().Perm()}
		if !f.dir {
			if f.data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		files = append(files, f)
		return nil
	})
	return files, err
})

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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// realPiWorktreeCLI is realPiCLI over realPiProject made a git
// repository (with git given an identity of its own), whose model plays
// turns as stepsScript does.
func realPiWorktreeCLI(t *testing.T, turns map[string][][]fakemodel.Call) (*cli, *fakemodel.Server, string) {
	t.Helper()
	worktreetest.Need(t)
	c := realPiCLI(t)
	env := worktreetest.Env(t)
	for _, k := range []string{"PATH", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		c.env[k] = env(k)
	}
	fake, root := realPiProject(t, c, true, stepsScript(turns))
	worktreetest.Repo(t, root, nil)
	return c, fake, root
}

// A worktree session whose file names the project as its working
// directory (as every one pi-tui wrote before pi ran in worktrees), run by
// the real pi: it still works in its worktree, and its file names the
// worktree from then on. Once the worktree is discarded the session works
// in the project again, and pi with it.
func TestRealPiOlderWorktreeSessionAndADiscard(t *testing.T) {
	c, _, root := realPiWorktreeCLI(t, map[string][][]fakemodel.Call{
		"old":  {{call("wo1", "write", "path", "old.txt", "content", "older session\n")}},
		"back": {{call("wp1", "write", "path", "back.txt", "content", "after the discard\n")}},
	})
	code, _, errs := c.run("", "prompt", "--project", "mono", "--worktree", "--engine", "pi", "hi")
	m := noteSession.FindStringSubmatch(errs)
	if code != 0 || m == nil {
		t.Fatalf("prompt --worktree: exit %d: %s", code, errs)
	}
	id, wt := m[1], m[3]
	_, file := onlySession(t, c)
	header := func() string {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		return first
	}
	if h := header(); !strings.Contains(h, `"cwd":"`+wt+`"`) {
		t.Fatalf("a new worktree session's header does not name its worktree: %s", h)
	}
	data, _ := os.ReadFile(file)
	older := strings.Replace(string(data), `"cwd":"`+wt+`"`, `"cwd":"`+root+`"`, 1)
	if err := os.WriteFile(file, []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}

	code, out, errs := c.run("", "prompt", "--project", "mono", "--session", id, "--engine", "pi", "--yes", "--json", "write old.txt")
	if code != 0 {
		t.Fatalf("prompt: exit %d: %s", code, errs)
	}
	promptOK(t, jsonLines(t, out))
	if _, err := os.Stat(filepath.Join(wt, "old.txt")); err != nil {
		t.Errorf("pi did not write old.txt in the worktree: %v", err)
	}
	if st := worktreetest.Git(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("the project's checkout is not clean:\n%s", st)
	}
	if h := header(); !strings.Contains(h, `"cwd":"`+wt+`"`) {
		t.Errorf("the session's header after pi ran it: %s", h)
	}

	c.ok("sessions", "discard", id, "--yes")
	code, out, errs = c.run("", "prompt", "--project", "mono", "--session", id, "--engine", "pi", "--yes", "--json", "write back.txt")
	if code != 0 {
		t.Fatalf("prompt after the discard: exit %d: %s", code, errs)
	}
	promptOK(t, jsonLines(t, out))
	if got, _ := os.ReadFile(filepath.Join(root, "back.txt")); string(got) != "after the discard\n" {
		t.Errorf("after the discard pi did not write back.txt in the project: %q", got)
	}
	if h := header(); !strings.Contains(h, `"cwd":"`+root+`"`) {
		t.Errorf("the session's header after the discard: %s", h)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// withoutIdentity takes git's identity away from c: no GIT_AUTHOR_* or
// GIT_COMMITTER_* variables, a home with no git config, no system config.
// Where git would still make up an email from the host's name, the home's
// config says to use only configured identities, as a user's may.
func withoutIdentity(t *testing.T, c *cli) {
	t.Helper()
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		delete(c.env, k)
	}
	c.env["XDG_CONFIG_HOME"] = filepath.Join(c.env["HOME"], ".config")
	c.env["GIT_CONFIG_NOSYSTEM"] = "1"
	cmd := exec.Command("git", "var", "GIT_COMMITTER_IDENT")
	cmd.Env = []string{"PATH=" + c.env["PATH"], "HOME=" + c.env["HOME"], "XDG_CONFIG_HOME=" + c.env["XDG_CONFIG_HOME"], "GIT_CONFIG_NOSYSTEM=1"}
	if cmd.Run() == nil {
		writeFile(t, filepath.Join(c.env["HOME"], ".gitconfig"), "[user]\n\tuseConfigOnly = true\n")
	}
}

// A merge that must commit, when git has no name and email, says what git
// needs and the two commands that give it, in one line; nothing is
// merged, staged or lost, and once the identity is set the same merge
// goes through. Both commits a merge can make are covered: the worktree's
// uncommitted changes, and a merge commit when the base moved.
func TestMergeWithoutAGitIdentitySaysWhatToDo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		dirty bool // the worktree has uncommitted changes (else the base moved)
	}{{"uncommitted changes", true}, {"merge commit", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, root := worktreeCLI(t, writeWhatIsAsked)
			id, branch, dir := promptInWorktree(t, c, "hello from the worktree")
			if !tc.dirty {
				worktreetest.Git(t, dir, "commit", "-qam", "on the branch")
				worktreetest.Write(t, root, "other.txt", "on main\n")
				worktreetest.Git(t, root, "add", "other.txt")
				worktreetest.Git(t, root, "commit", "-qm", "on main")
			}
			mainHead := worktreetest.Git(t, root, "rev-parse", "main")
			branchHead := worktreetest.Git(t, root, "rev-parse", branch)
			withoutIdentity(t, c)

			code, out, errs := c.run("", "sessions", "merge", id)
			if code != 1 || out != "" || strings.Count(errs, "\n") != 1 {
				t.Fatalf("merge without an identity = %d %q %q", code, out, errs)
			}
			for _, want := range []string{"git needs your name and email to commit the merge",
				`git config --global user.name "Your Name"`, "git config --global user.email you@example.com",
				"nothing was merged and nothing is lost", branch} {
				if !strings.Contains(errs, want) {
					t.Errorf("the error lacks %q: %s", want, errs)
				}
			}
			if strings.Contains(errs, "Author identity unknown") || strings.Contains(errs, "Committer identity unknown") {
				t.Errorf("the error is git's, not the sentence: %s", errs)
			}

			// Nothing moved: main, the branch, the worktree's files and index.
			if got := worktreetest.Git(t, root, "rev-parse", "main"); got != mainHead {
				t.Errorf("main moved: %s → %s", mainHead, got)
			}
			if got := worktreetest.Git(t, root, "rev-parse", branch); got != branchHead {
				t.Errorf("%s moved: %s → %s", branch, branchHead, got)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(got) != "hello from the worktree\n" {
				t.Errorf("the worktree's greet.txt = %q", got)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "hello\n" {
				t.Errorf("the main checkout's greet.txt = %q", got)
			}
			wantStatus := ""
			if tc.dirty {
				wantStatus = " M greet.txt\n"
			}
			if st := worktreetest.Git(t, dir, "status", "--porcelain"); st != wantStatus {
				t.Errorf("the worktree's status = %q, want %q (nothing staged)", st, wantStatus)
			}
			if st := worktreetest.Git(t, root, "status", "--porcelain"); st != "" {
				t.Errorf("the main checkout is not clean:\n%s", st)
			}

			// The two commands, then the same merge.
			worktreetest.Git(t, root, "config", "user.name", "Your Name")
			worktreetest.Git(t, root, "config", "user.email", "you@example.com")
			if out := c.ok("sessions", "merge", id); !strings.Contains(out, "Merged "+branch+" into main") {
				t.Errorf("merge with an identity: %s", out)
			}
			if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "hello from the worktree\n" {
				t.Errorf("main checkout after the merge = %q", got)
			}
		})
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// writeWhatIsAsked writes greet.txt with the prompt's text, then answers.
func writeWhatIsAsked(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("w%d", n), Name: "write",
			Args: map[string]string{"path": "greet.txt", "content": req.LastUser + "\n"}}}}
	}
	return fakemodel.Reply{Text: "Done."}
}

// worktreeCLI is a CLI whose project "mono" is a git repository, with git
// given an identity of its own.
func worktreeCLI(t *testing.T, script fakemodel.Script) (*cli, string) {
	worktreetest.Need(t)
	c := newCLI(t)
	env := worktreetest.Env(t)
	for _, k := range []string{"PATH", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		c.env[k] = env(k)
	}
	_, root := modelRig(t, c, script)
	writeFile(t, filepath.Join(root, "greet.txt"), "hello\n")
	worktreetest.Repo(t, root, nil)
	return c, root
}

var noteSession = regexp.MustCompile(`session (\S+) works on branch (pi/\S+) \(from main\) in "([^"]+)"`)

// promptInWorktree runs prompt --worktree and returns the session id and
// its worktree root from the note on standard error.
func promptInWorktree(t *testing.T, c *cli, text string) (id, branch, root string) {
	t.Helper()
	code, out, errs := c.run("", "prompt", "--project", "mono", "--worktree", "--yes", text)
	m := noteSession.FindStringSubmatch(errs)
	if code != 0 || out != "Done.\n" || m == nil {
		t.Fatalf("prompt --worktree = %d %q %q", code, out, errs)
	}
	return m[1], m[2], m[3]
}

func TestWorktreeSessionsFromTheCommandLine(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, writeWhatIsAsked)
	a, branchA, rootA := promptInWorktree(t, c, "hello from a")
	b, _, rootB := promptInWorktree(t, c, "hello from b")
	for dir, want := range map[string]string{rootA: "hello from a\n", rootB: "hello from b\n", root: "hello\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, "greet.txt")); string(got) != want {
			t.Errorf("%s/greet.txt = %q, want %q", dir, got, want)
		}
	}

	out := c.ok("sessions", "list", "mono")
	if !strings.Contains(out, "WORKTREE") || !strings.Contains(out, branchA+" * 1 file +1 -1") {
		t.Errorf("sessions list does not show the worktree:\n%s", out)
	}
	var rows []struct {
		ID       string
		Worktree *struct {
			Branch      string
			Uncommitted []string
		}
	}
	json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &rows)
	if len(rows) != 2 || rows[0].Worktree == nil || strings.Join(rows[0].Worktree.Uncommitted, ",") != "greet.txt" {
		t.Errorf("sessions list --json = %+v", rows)
	}

	// The chain a session's runtime gets names its root.
	if out := c.ok("instructions", "--session", a); !strings.Contains(out, "Chain from the worktree of session "+a) {
		t.Errorf("instructions --session:\n%s", out)
	}

	if out := c.ok("sessions", "merge", a, "--message", "Greet from a"); !strings.Contains(out, "Merged "+branchA+" into main") ||
		!strings.Contains(out, "fast-forward") {
		t.Errorf("merge a: %s", out)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "hello from a\n" {
		t.Errorf("main checkout after merge = %q", got)
	}
	c.fails(1, "conflicts in greet.txt", "sessions", "merge", b)
	if st := worktreetest.Git(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("main checkout left half-merged:\n%s", st)
	}

	// Not a terminal: discard refuses without --yes, naming what is lost.
	c.fails(1, "pass --yes", "sessions", "discard", b)
	if _, err := os.Stat(rootB); err != nil {
		t.Fatal("discard without --yes removed the worktree")
	}
	if out := c.ok("sessions", "discard", b, "--yes"); !strings.Contains(out, "deleted branch") {
		t.Errorf("discard: %s", out)
	}
	if _, err := os.Stat(rootB); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	c.fails(1, "has no worktree", "sessions", "merge", b)
}

func TestRPCNewSessionInAWorktree(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, writeWhatIsAsked)
	r := startRPC(t, c, "--project", "mono")
	r.send(`{"id":"n1","type":"new_session","worktree":true}`)
	resp := r.until(func(m map[string]any) bool { return m["type"] == "response" })
	data, _ := resp[len(resp)-1]["data"].(map[string]any)
	wt, _ := data["worktree"].(map[string]any)
	if wt == nil || !strings.HasPrefix(wt["branch"].(string), "pi/") {
		t.Fatalf("new_session worktree reply = %v", resp[len(resp)-1])
	}
	if _, err := os.Stat(filepath.Join(wt["root"].(string), "greet.txt")); err != nil {
		t.Errorf("the worktree was not checked out: %v", err)
	}
	if out := worktreetest.Git(t, root, "branch", "--list", wt["branch"].(string)); out == "" {
		t.Errorf("no branch %s in the project", wt["branch"])
	}
}

// sessions merge without --message commits under the session's first
// message, as the session list names an unnamed session.
func TestMergeMessageIsTheFirstMessage(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, writeWhatIsAsked)
	id, _, _ := promptInWorktree(t, c, "say hello from c")
	c.ok("sessions", "merge", id)
	if got := worktreetest.Git(t, root, "log", "-1", "--format=%s"); strings.TrimSpace(got) != "say hello from c" {
		t.Errorf("merge commit message = %q", got)
	}
}

// merge and discard take a session by its branch too, as the list shows
// it ("pi/00f08c66") or by the branch's short id; one that names no
// session says so in one sentence.
func TestWorktreeCommandsTakeTheBranchsShortID(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, writeWhatIsAsked)
	_, branchA, _ := promptInWorktree(t, c, "hello from a")
	_, branchB, rootB := promptInWorktree(t, c, "hello from b")
	short := strings.TrimPrefix(branchA, "pi/")
	if out := c.ok("sessions", "merge", short, "--message", "Greet"); !strings.Contains(out, "Merged "+branchA+" into main") {
		t.Errorf("merge %s: %s", short, out)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "hello from a\n" {
		t.Errorf("main checkout after merge = %q", got)
	}
	if out := c.ok("sessions", "discard", branchB, "--yes"); !strings.Contains(out, "deleted branch") {
		t.Errorf("discard %s: %s", branchB, out)
	}
	if _, err := os.Stat(rootB); !os.IsNotExist(err) {
		t.Errorf("worktree still there: %v", err)
	}
	code, _, errs := c.run("", "sessions", "merge", "0badc0de")
	if code != 1 || strings.TrimSpace(errs) != "pi-tui: there is no session 0badc0de; list them with pi-tui sessions list PROJECT" {
		t.Errorf("merge of no session = %d %q", code, errs)
	}
}

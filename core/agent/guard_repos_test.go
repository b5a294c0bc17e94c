package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The sequence, run by the built-in engine in auto-edits with
// every approval denied: the first four writes go through (none makes a
// repository yet), the fifth, which would, asks and is not made; git then
// finds no repository in newrepo/ and nothing ran.
func TestAssembledGitDirectoryAsks(t *testing.T) {
	worktreetest.Need(t)
	root, marks := tempRoot(t), tempRoot(t)
	pieces := guardtest.AssembledRepo(root, marks)
	var calls []fakemodel.Call
	for i, p := range pieces {
		calls = append(calls, fakemodel.Call{ID: fmt.Sprintf("c%d", i+1), Name: "write", Args: map[string]string{"path": p.Path, "content": p.Content}})
	}
	asked := askedInAutoEdits(t, root, calls)
	if len(asked) != 1 || asked["c5"] == "" {
		t.Fatalf("asked %v; want newrepo/commondir only", asked)
	}
	if !strings.Contains(asked["c5"], "commondir") || strings.Contains(asked["c5"], "\n") {
		t.Errorf("the reason does not say why in one line: %q", asked["c5"])
	}
	for _, p := range pieces[:4] {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p.Path))); err != nil {
			t.Errorf("%s was not written: %v", p.Path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "newrepo", "commondir")); err == nil {
		t.Error("newrepo/commondir was written without approval")
	}
	if guardtest.GitSees(t, filepath.Join(root, "newrepo")) {
		t.Error("git takes newrepo/ for a repository")
	}
	worktreetest.NoMarks(t, marks)
	// The pi engine's bridge decides with the same call.
	if need, why, _ := toolpolicy.NeedsApproval(root, toolpolicy.PermissionAutoEdits, "write", "newrepo/commondir"); !need || why == "" {
		t.Errorf("toolpolicy.NeedsApproval in auto-edits: need %v, reason %q", need, why)
	}
}

// The three writes the security review found going through in
// auto-edits mode, in the main checkout and in a linked worktree: the
// included config file itself, a hook in the folder that included file
// names, and a hook in a folder named by a continued line.
func TestIncludedConfigAndContinuedLinesAsk(t *testing.T) {
	main, wt := guardtest.IncludeRepo(t)
	calls := []fakemodel.Call{
		{ID: "include", Name: "write", Args: map[string]string{"path": "devtools/git.cfg", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
		{ID: "includeEdit", Name: "edit", Args: map[string]string{"path": "devtools/git.cfg", "oldText": "hooksPath = tools/hooks", "newText": "fsmonitor = touch pwned"}},
		{ID: "hook", Name: "write", Args: map[string]string{"path": "tools/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "continued", Name: "write", Args: map[string]string{"path": ".githooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "ok", Name: "write", Args: map[string]string{"path": "src/ok.go", "content": "package src\n"}},
	}
	// A second config file, included from .git/config, names its hooks
	// folder on a continued line: git reads ".githooks".
	common := filepath.Join(main, ".git")
	os.WriteFile(filepath.Join(common, "more.cfg"), []byte("[core]\n\thooksPath = .git\\\nhooks\n"), 0o644)
	worktreetest.Git(t, main, "config", "--add", "include.path", "more.cfg")
	for _, root := range []string{main, wt} {
		if got := strings.TrimSpace(worktreetest.Git(t, root, "config", "core.hooksPath")); got != ".githooks" {
			t.Fatalf("%s: git reads the continued hooksPath as %q", root, got)
		}
	}
	reasons := map[string]map[string]string{}
	for _, root := range []string{main, wt} {
		reasons[root] = askedInAutoEdits(t, root, calls)
		if got := guardtest.Read(t, filepath.Join(root, "devtools", "git.cfg")); strings.Contains(got, "fsmonitor") {
			t.Errorf("%s: the included config was changed without approval: %q", root, got)
		}
		if got := guardtest.Read(t, filepath.Join(root, "tools", "hooks", "pre-commit")); got != "#!/bin/sh\nexit 0\n" {
			t.Errorf("%s: the hook the included config names was changed without approval: %q", root, got)
		}
		if _, err := os.Stat(filepath.Join(root, ".githooks", "pre-commit")); err == nil {
			t.Errorf("%s: a hook in the continued hooksPath was written without approval", root)
		}
		if _, err := os.Stat(filepath.Join(root, "src", "ok.go")); err != nil {
			t.Errorf("%s: the ordinary write did not happen: %v", root, err)
		}
	}
	askedAlike(t, calls, reasons[main], reasons[wt], "")
	if why := reasons[main]["include"]; !strings.Contains(why, "include") {
		t.Errorf("the reason for the included config does not say it is included: %q", why)
	}
}

// A worktree session asks before the same writes as a session in the main
// checkout, with the same reasons: core.hooksPath is read from the common
// git dir's config although .git is a file there.
func TestWorktreeAsksExactlyAsItsMainCheckout(t *testing.T) {
	main, wt := guardtest.HooksRepo(t)
	calls := []fakemodel.Call{
		{ID: "hook", Name: "write", Args: map[string]string{"path": ".githooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "newhook", Name: "write", Args: map[string]string{"path": ".githooks/post-checkout", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "edit", Name: "edit", Args: map[string]string{"path": ".githooks/pre-commit", "oldText": "exit 0", "newText": "touch pwned"}},
		{ID: "dotgit", Name: "write", Args: map[string]string{"path": ".git", "content": "gitdir: /tmp/elsewhere\n"}},
		{ID: "envrc", Name: "write", Args: map[string]string{"path": ".envrc", "content": "touch pwned\n"}},
		{ID: "husky", Name: "write", Args: map[string]string{"path": ".husky/pre-push", "content": "x"}},
		{ID: "settings", Name: "write", Args: map[string]string{"path": ".pi/settings.json", "content": `{"shellPath":"/tmp/evil"}`}},
		{ID: "planted", Name: "write", Args: map[string]string{"path": "vendor2/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
		{ID: "ok", Name: "write", Args: map[string]string{"path": "src/ok.go", "content": "package src\n"}},
	}
	reasons := map[string]map[string]string{}
	for _, root := range []string{main, wt} {
		reasons[root] = askedInAutoEdits(t, root, calls)
		if got := guardtest.Read(t, filepath.Join(root, ".githooks", "pre-commit")); got != "#!/bin/sh\nexit 0\n" {
			t.Errorf("%s: the hook was changed without approval: %q", root, got)
		}
		if _, err := os.Stat(filepath.Join(root, ".githooks", "post-checkout")); err == nil {
			t.Errorf("%s: a new hook was written without approval", root)
		}
		if _, err := os.Stat(filepath.Join(root, "src", "ok.go")); err != nil {
			t.Errorf("%s: the ordinary write did not happen: %v", root, err)
		}
	}
	askedAlike(t, calls, reasons[main], reasons[wt], "dotgit") // .git is a folder in one, a file in the other
	if !strings.Contains(reasons[wt]["hook"], "core.hooksPath") {
		t.Errorf("the worktree's reason for .githooks/pre-commit = %q", reasons[wt]["hook"])
	}
	// The worktree's hook is what git runs at the user's next commit there.
	if data := guardtest.Read(t, filepath.Join(wt, ".githooks", "pre-commit")); strings.Contains(data, "pwned") {
		t.Error("the worktree's hook was written")
	}
}

// askedInAutoEdits runs calls in an auto-edits session at root, denying
// every approval, and returns the reason asked with, by call ID.
func askedInAutoEdits(t *testing.T, root string, calls []fakemodel.Call) map[string]string {
	t.Helper()
	var mu sync.Mutex
	asked := map[string]string{}
	h := newHarness(t, allCallsThenDone(calls), func(c *Config) {
		c.Root = root
		c.Permission = toolpolicy.PermissionAutoEdits
		c.Approve = func(ctx context.Context, a toolpolicy.Approval) (bool, error) {
			mu.Lock()
			asked[a.ToolCallID] = a.Reason
			mu.Unlock()
			return false, nil
		}
	})
	if _, err := h.ag.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	return asked
}

// askedAlike fails unless every call but "ok" asked in the main checkout
// and in the worktree, with the same reason (but for the call differs),
// and "ok" asked in neither.
func askedAlike(t *testing.T, calls []fakemodel.Call, inMain, inWT map[string]string, differs string) {
	t.Helper()
	for _, c := range calls {
		m, askedMain := inMain[c.ID]
		w, askedWT := inWT[c.ID]
		if c.ID == "ok" {
			if askedMain || askedWT {
				t.Errorf("an ordinary write asked (main %v, worktree %v)", askedMain, askedWT)
			}
			continue
		}
		if !askedMain || !askedWT {
			t.Errorf("%s %v: asked in the main checkout %v, in the worktree %v; want both", c.Name, c.Args, askedMain, askedWT)
			continue
		}
		if m != w && c.ID != differs {
			t.Errorf("%s: reasons differ:\n  main:     %s\n  worktree: %s", c.ID, m, w)
		}
	}
}

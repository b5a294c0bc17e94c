package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// runOnUseCalls are writes and edits of files that git, direnv, pi or an
// editor run: each must ask, whatever way the path is spelled.
var runOnUseCalls = []fakemodel.Call{
	{ID: "c1", Name: "write", Args: map[string]string{"path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
	{ID: "c2", Name: "edit", Args: map[string]string{"path": ".git/config", "oldText": "[core]", "newText": "[core]\n\tfsmonitor = touch pwned"}},
	{ID: "c3", Name: "write", Args: map[string]string{"path": "sub/../.git/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
	{ID: "c4", Name: "write", Args: map[string]string{"path": "./.git/info/attributes", "content": "* filter=x\n"}},
	{ID: "c5", Name: "write", Args: map[string]string{"path": "gitdir/config", "content": "x"}}, // gitdir -> .git (absolute link)
	{ID: "c6", Name: "write", Args: map[string]string{"path": "relgit/hooks/post-checkout", "content": "x"}},
	{ID: "c7", Name: "write", Args: map[string]string{"path": "vendor/lib/.git/config", "content": "x"}}, // a submodule's
	{ID: "c8", Name: "write", Args: map[string]string{"path": ".envrc", "content": "touch pwned\n"}},
	{ID: "c9", Name: "write", Args: map[string]string{"path": "web/.envrc", "content": "touch pwned\n"}},
	{ID: "c10", Name: "write", Args: map[string]string{"path": ".pi/extensions/evil.ts", "content": "x"}},
	{ID: "c11", Name: "write", Args: map[string]string{"path": ".pi/settings.json", "content": `{"shellPath":"/tmp/evil"}`}},
	{ID: "c12", Name: "write", Args: map[string]string{"path": ".husky/pre-commit", "content": "x"}},
	{ID: "c13", Name: "write", Args: map[string]string{"path": ".vscode/tasks.json", "content": "{}"}},
	{ID: "c14", Name: "write", Args: map[string]string{"path": "hooklink", "content": "x"}}, // hooklink -> .git/hooks/pre-push
	// The copy of the always-allow rules: the agent must not approve itself.
	{ID: "c16", Name: "write", Args: map[string]string{"path": ".pi/pi-tui-approvals.json", "content": `{"rules":[{"tool":"bash","pattern":"rm *"}]}`}},
	// A planted repository: vendor2/ has HEAD, objects/ and refs/, so git
	// reads vendor2/config (core.worktree, core.fsmonitor) in there.
	{ID: "c15", Name: "write", Args: map[string]string{"path": "vendor2/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
}

// ordinaryCall is a write that auto-edits lets through without asking.
var ordinaryCall = fakemodel.Call{ID: "ok", Name: "write", Args: map[string]string{"path": "src/ok.go", "content": "package src\n"}}

func runOnUseProject(t *testing.T, root string) {
	t.Helper()
	for _, d := range []string{".git/hooks", ".git/info", "sub", "vendor/lib/.git", "web", "src", "vendor2/objects", "vendor2/refs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".git", "hooks", "pre-push"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(root, "vendor2", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	if err := os.Symlink(filepath.Join(root, ".git"), filepath.Join(root, "gitdir")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(".git", filepath.Join(root, "relgit"))
	os.Symlink(".git/hooks/pre-push", filepath.Join(root, "hooklink"))
}

func allCallsThenDone(calls []fakemodel.Call) fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: calls}
		}
		return fakemodel.Reply{Text: "done"}
	}
}

func TestWritesThatRunCodeAlwaysAsk(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]toolpolicy.Approval{}
	calls := append(append([]fakemodel.Call(nil), runOnUseCalls...), ordinaryCall)
	h := newHarness(t, allCallsThenDone(calls), func(c *Config) {
		c.Permission = toolpolicy.PermissionAutoEdits
		c.Approve = func(ctx context.Context, a toolpolicy.Approval) (bool, error) {
			mu.Lock()
			asked[a.ToolCallID] = a
			mu.Unlock()
			return false, nil
		}
	})
	runOnUseProject(t, h.root)
	if _, err := h.ag.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	for _, c := range runOnUseCalls {
		a, ok := asked[c.ID]
		if !ok {
			t.Errorf("%s %v ran without asking in auto-edits", c.Name, c.Args)
			continue
		}
		if a.Reason == "" || strings.Contains(a.Reason, "\n") {
			t.Errorf("%s %v: the approval gives no one-line reason: %q", c.Name, c.Args, a.Reason)
		}
	}
	if _, ok := asked[ordinaryCall.ID]; ok {
		t.Error("an ordinary write asked in auto-edits")
	}
	if _, err := os.Stat(filepath.Join(h.root, "src", "ok.go")); err != nil {
		t.Errorf("the ordinary write did not happen: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(h.root, ".git", "config")); string(data) != "[core]\n" {
		t.Errorf(".git/config was changed without approval: %q", data)
	}
	for _, p := range []string{".envrc", ".pi/extensions/evil.ts", ".git/hooks/pre-commit"} {
		if _, err := os.Stat(filepath.Join(h.root, p)); err == nil {
			t.Errorf("%s was written without approval", p)
		}
	}
	if hook, _ := os.ReadFile(filepath.Join(h.root, ".git", "hooks", "pre-push")); string(hook) != "#!/bin/sh\n" {
		t.Errorf("a hook was replaced through a link without approval: %q", hook)
	}
	if got := fmt.Sprint(asked["c1"].Reason); !strings.Contains(got, ".git") {
		t.Errorf("the reason for .git/config does not say why: %q", got)
	}
}

// Headless runs without --yes have no approver: the same writes are
// denied, not made.
func TestWritesThatRunCodeAreDeniedHeadless(t *testing.T) {
	h := newHarness(t, allCallsThenDone(runOnUseCalls[:2]), func(c *Config) { c.Permission = toolpolicy.PermissionAutoEdits })
	runOnUseProject(t, h.root)
	h.ag.Prompt(context.Background(), "go")
	denied := 0
	for len(h.evs) > 0 {
		if e, ok := (<-h.evs).(events.ToolEnded); ok && e.Denied {
			denied++
		}
	}
	if data, _ := os.ReadFile(filepath.Join(h.root, ".git", "config")); string(data) != "[core]\n" || denied != 2 {
		t.Errorf("denied %d of 2; .git/config = %q", denied, data)
	}
}

// full-auto is the one mode that does not ask.
func TestFullAutoWritesRunOnUseFiles(t *testing.T) {
	asked := 0
	h := newHarness(t, allCallsThenDone(runOnUseCalls[:1]), func(c *Config) {
		c.Approve = func(context.Context, toolpolicy.Approval) (bool, error) { asked++; return false, nil }
	})
	runOnUseProject(t, h.root)
	h.ag.Prompt(context.Background(), "go")
	if data, _ := os.ReadFile(filepath.Join(h.root, ".git", "config")); asked != 0 || !strings.Contains(string(data), "fsmonitor") {
		t.Errorf("full-auto asked %d times; .git/config = %q", asked, data)
	}
}

// An approval to write one run-on-use file covers that file only: if the
// path resolves to another one by the time of the write (a link swapped
// in), the write is refused.
func TestApprovalCoversTheApprovedFileOnly(t *testing.T) {
	root := tempRoot(t)
	os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755)
	approved := filepath.Join(root, ".envrc")
	env := toolEnv{root: root, approved: approved}
	res := env.run(context.Background(), call("write", map[string]string{"path": ".envrc", "content": "export A=1\n"}))
	if res.IsError {
		t.Fatalf("the approved write failed: %s", res.Text)
	}
	res = env.run(context.Background(), call("write", map[string]string{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}))
	if !res.IsError || !strings.Contains(res.Text, "approval") {
		t.Errorf("a write to another run-on-use file went through on the first one's approval: %q", res.Text)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the hook was written")
	}
}

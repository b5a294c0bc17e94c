package runtimes

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/store"
)

// Approval rules are the project's: in a session working in its own
// worktree they still apply (keyed by the project's root), while a file is
// matched by its path inside the worktree.
func TestRulesApplyInAWorktreeSession(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	project, wt := filepath.Join(dir, "proj"), filepath.Join(dir, "wt")
	for _, d := range []string{project, filepath.Join(wt, "docs")} {
		os.MkdirAll(d, 0o755)
	}
	rules := approvals.New(st)
	ctx := context.Background()
	for _, r := range []approvals.Rule{{Tool: approvals.ToolBash, Pattern: "go test *"}, {Tool: approvals.ToolWrite, Pattern: "docs/**"}} {
		if err := rules.Add(ctx, project, r); err != nil {
			t.Fatal(err)
		}
	}
	if !covered(ctx, rules, confine.Single(wt), project, events.Approval{Tool: approvals.ToolBash, Command: "go test ./..."}) {
		t.Error("the project's bash rule does not apply in its worktree")
	}
	if !covered(ctx, rules, confine.Single(wt), project, events.Approval{Tool: approvals.ToolWrite, Path: filepath.Join(wt, "docs", "a.md")}) {
		t.Error("the project's path rule does not match a file in the worktree")
	}
	if covered(ctx, rules, confine.Single(wt), wt, events.Approval{Tool: approvals.ToolBash, Command: "go test ./..."}) {
		t.Error("rules keyed by the worktree's folder exist")
	}
}

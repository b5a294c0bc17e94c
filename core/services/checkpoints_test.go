package services

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Deleting a session removes the checkpoints it recorded: a write
// recorded against a real file in a real session file is listed before
// the delete (once the store records; it is listed as nothing while its
// bodies are stubs) and not after.
func TestDeletingASessionRemovesItsCheckpoints(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	h, err := Open(context.Background(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	root := filepath.Join(dir, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	p, _, err := h.Projects.Add(ctx, root, "proj", true)
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.Sessions.Create(ctx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	msg := map[string]any{"message": map[string]any{"role": "assistant", "content": []any{}}}
	if _, err := s.Append(ctx, sessions.TypeUser, map[string]any{"message": map[string]any{"role": "user", "content": "write a"}}); err != nil {
		t.Fatal(err)
	}
	e, err := s.Append(ctx, sessions.TypeAssistant, msg)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "a.txt")
	mark := h.Checkpoints.Recorder(s.ID(), s.File(), root).Before(ctx, checkpoints.Call{ToolCallID: "w", Tool: "write", Entry: e.ID, Paths: []string{target}})
	if err := os.WriteFile(target, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mark.After(ctx)
	info := checkpoints.SessionInfo{ID: s.ID(), Order: []string{e.ID}}
	before, err := h.Checkpoints.Changes(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d changes recorded before the delete", len(before))
	id := s.ID()
	s.Close()
	if err := h.Sessions.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	// A store may say the session has no journal at all: as good as none.
	if after, err := h.Checkpoints.Changes(ctx, info); len(after) != 0 || err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after the delete: %d changes, %v; want none", len(after), err)
	}
}

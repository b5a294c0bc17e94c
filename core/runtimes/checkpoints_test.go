package runtimes

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// watchedRoots records, through Options.WrapCheckpoints, the root each
// runtime's checkpoints are recorded in and the calls they bracket; the
// host's own checkpoints still record underneath, and each result's note
// is marked so the test can see it reach the call's ToolEnded.
type watchedRoots struct {
	mu    sync.Mutex
	calls []rootedCall
}

type rootedCall struct {
	root string
	call checkpoints.Call
}

func (w *watchedRoots) wrap(root string, inner toolpolicy.Checkpointer) toolpolicy.Checkpointer {
	return watchedCheckpointer{w: w, root: root, inner: inner}
}

func (w *watchedRoots) seen() []rootedCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.calls)
}

type watchedCheckpointer struct {
	w     *watchedRoots
	root  string
	inner toolpolicy.Checkpointer
}

func (c watchedCheckpointer) Before(ctx context.Context, call checkpoints.Call) toolpolicy.Checkpoint {
	c.w.mu.Lock()
	c.w.calls = append(c.w.calls, rootedCall{root: c.root, call: call})
	c.w.mu.Unlock()
	return markedAfter{c.inner.Before(ctx, call)}
}

type markedAfter struct{ inner toolpolicy.Checkpoint }

func (m markedAfter) After(ctx context.Context) checkpoints.Result {
	res := m.inner.After(ctx)
	res.Note += "[watched]"
	return res
}

// writeAndBash: the first call of each prompt writes a file and runs a
// command that makes another, then the model answers.
func writeAndBash(_ int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{
			{ID: "w", Name: "write", Args: map[string]any{"path": "notes.txt", "content": "n\n"}},
			{ID: "b", Name: "bash", Args: map[string]any{"command": "echo made > made.txt"}},
		}}
	}
	return fakemodel.Reply{Text: "done"}
}

// A session in a worktree of its own records its checkpoints in that
// worktree, a session of the project in the project root: the root its
// tools work in. The write names its target there, the command none, and
// each call's end carries its checkpoint's result.
func TestCheckpointsRecordInTheRuntimesRoot(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	watch := &watchedRoots{}
	r := newRig(t, writeAndBash, func(o *Options) { o.WrapCheckpoints = watch.wrap })
	if err := r.h.SetPermissionMode(context.Background(), services.PermissionFullAuto); err != nil {
		t.Fatal(err)
	}
	worktreetest.Repo(t, r.root, nil)
	gitted, err := services.Open(context.Background(), r.h.Places, services.Options{Env: worktreetest.Env(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gitted.Close() })
	first, err := r.m.Sessions().Open(context.Background(), r.sid)
	if err != nil {
		t.Fatal(err)
	}
	sa, wa, err := gitted.Worktrees.NewSession(context.Background(), r.m.sessions, first.ProjectID(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	r.take()

	r.promptIn(sa.ID(), "make notes in the worktree")
	r.prompt("make notes in the project")
	for _, root := range []string{wa.Root, r.root} {
		if _, err := os.Stat(filepath.Join(root, "made.txt")); err != nil {
			t.Errorf("the command did not run in %s: %v", root, err)
		}
	}
	got := watch.seen()
	if len(got) != 4 {
		t.Fatalf("%d checkpoints, want write and bash in each session: %+v", len(got), got)
	}
	for i, root := range []string{wa.Root, r.root} {
		w, b := got[2*i], got[2*i+1]
		if w.root != root || w.call.Tool != "write" || !slices.Equal(w.call.Paths, []string{filepath.Join(root, "notes.txt")}) || w.call.Entry == "" {
			t.Errorf("write's checkpoint = %+v, want it in %s", w, root)
		}
		if b.root != root || b.call.Tool != "bash" || b.call.Paths != nil || b.call.Entry != w.call.Entry {
			t.Errorf("bash's checkpoint = %+v, want it in %s, of the write's entry", b, root)
		}
	}
	ends := find[events.ToolEnded](r.take())
	if len(ends) != 4 {
		t.Fatalf("tool ends = %+v", ends)
	}
	for _, e := range ends {
		if e.IsError || !strings.HasSuffix(e.ChangesNote, "[watched]") {
			t.Errorf("%s's end = %+v, want its checkpoint's result", e.ToolName, e)
		}
	}
}

// The pi engine's calls are bracketed by the bridge's host the same way,
// and their ends, which the pi engine publishes, carry the results.
func TestPiCheckpointsThroughTheBridge(t *testing.T) {
	t.Parallel()
	watch := &watchedRoots{}
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{
		{Tools: []fakepi.Tool{
			{ID: "t1", Name: "write", Args: map[string]any{"path": "new.txt", "content": "x"}},
			{ID: "t2", Name: "bash", Args: map[string]any{"command": "echo made > made.txt"}},
			{ID: "t3", Name: "read", Args: map[string]any{"path": "new.txt"}},
		}},
		{Text: "done"},
	}}, func(o *Options) { o.WrapCheckpoints = watch.wrap })
	if err := r.h.SetPermissionMode(context.Background(), services.PermissionFullAuto); err != nil {
		t.Fatal(err)
	}
	if res := r.prompt("write and run"); res.Text != "done" {
		t.Fatalf("answer = %q", res.Text)
	}
	got := watch.seen()
	if len(got) != 2 || got[0].root != r.root || got[0].call.Tool != "write" || !slices.Equal(got[0].call.Paths, []string{filepath.Join(r.root, "new.txt")}) ||
		got[1].root != r.root || got[1].call.Tool != "bash" || got[1].call.Paths != nil {
		t.Fatalf("checkpoints = %+v, want write's (its target) and bash's (none) in %s", got, r.root)
	}
	ends := find[events.ToolEnded](r.take())
	if len(ends) != 3 {
		t.Fatalf("tool ends = %+v", ends)
	}
	for _, e := range ends {
		watched := strings.HasSuffix(e.ChangesNote, "[watched]")
		if e.IsError || watched != (e.ToolName != "read") {
			t.Errorf("%s's end = %+v; want its checkpoint's result on write and bash only", e.ToolName, e)
		}
	}
}

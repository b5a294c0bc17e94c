package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// watchedCall is what a recording checkpointer saw of one call: the call,
// and whether the files it watches existed before and after it ran.
type watchedCall struct {
	call          checkpoints.Call
	before, after bool
	afterCalled   bool
}

// recordingCheckpoints records the calls it brackets and says, for each,
// whether watch (a file the test names) existed at Before and at After,
// so the test can tell Before came before the tool and After after it.
// Its After returns one change naming the call, as the store would.
type recordingCheckpoints struct {
	watch map[string]string // tool call id → absolute file to look at
	mu    sync.Mutex
	calls []*watchedCall
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func (r *recordingCheckpoints) Before(_ context.Context, c checkpoints.Call) toolpolicy.Checkpoint {
	w := &watchedCall{call: c, before: exists(r.watch[c.ToolCallID])}
	r.mu.Lock()
	r.calls = append(r.calls, w)
	r.mu.Unlock()
	return afterFunc(func() checkpoints.Result {
		r.mu.Lock()
		defer r.mu.Unlock()
		w.after, w.afterCalled = exists(r.watch[c.ToolCallID]), true
		return checkpoints.Result{Changes: []events.FileChange{{N: len(r.calls), Path: c.ToolCallID + ".txt", Status: checkpoints.StatusAdded, Added: 1}},
			Note: "noted " + c.ToolCallID}
	})
}

type afterFunc func() checkpoints.Result

func (f afterFunc) After(context.Context) checkpoints.Result { return f() }

func (r *recordingCheckpoints) seen() []*watchedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// A turn that writes a file, runs a bash command that makes another, and
// reads one: write and bash are bracketed by a checkpoint, the write
// naming its confined target and bash none (the project is walked), both
// naming the assistant entry that issued them; the read and a call of an
// unknown tool take none. Each file-changing call's end carries what its
// checkpoint recorded.
func TestCheckpointsBracketTheCallsThatChangeFiles(t *testing.T) {
	t.Parallel()
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "w", Name: "write", Args: map[string]any{"path": "src/a.txt", "content": "alpha\n"}},
				{ID: "b", Name: "bash", Args: map[string]any{"command": "echo beta > b.txt"}},
				{ID: "r", Name: "read", Args: map[string]any{"path": "src/a.txt"}},
				{ID: "u", Name: "rm_rf", Args: map[string]any{}},
			}}
		}
		return fakemodel.Reply{Text: "done"}
	}
	rec := &recordingCheckpoints{}
	h := newHarness(t, script, func(c *Config) { c.Checkpoints = rec })
	rec.watch = map[string]string{"w": filepath.Join(h.root, "src", "a.txt"), "b": filepath.Join(h.root, "b.txt")}
	if _, err := h.ag.Prompt(context.Background(), "make two files"); err != nil {
		t.Fatal(err)
	}
	var assistant string
	for _, e := range h.sess.Path() {
		if e.Type == sessions.TypeAssistant {
			assistant = e.ID
			break
		}
	}
	got := rec.seen()
	if len(got) != 2 {
		t.Fatalf("%d checkpoints, want 2 (write and bash): %+v", len(got), got)
	}
	w, b := got[0], got[1]
	if w.call.ToolCallID != "w" || w.call.Tool != "write" || !slices.Equal(w.call.Paths, []string{filepath.Join(h.root, "src", "a.txt")}) || w.call.Entry != assistant {
		t.Errorf("write's checkpoint = %+v, want its target and entry %s", w.call, assistant)
	}
	if b.call.ToolCallID != "b" || b.call.Tool != "bash" || b.call.Paths != nil || b.call.Entry != assistant {
		t.Errorf("bash's checkpoint = %+v, want no paths and entry %s", b.call, assistant)
	}
	for _, c := range got {
		if c.before || !c.after || !c.afterCalled {
			t.Errorf("%s: file before %v, after %v (After called %v); want Before before the tool and After after it", c.call.Tool, c.before, c.after, c.afterCalled)
		}
	}
	ends := map[string]events.ToolEnded{}
	for len(ends) < 4 {
		if e, ok := (<-h.evs).(events.ToolEnded); ok {
			ends[e.ToolCallID] = e
		}
	}
	for _, id := range []string{"w", "b"} {
		if e := ends[id]; len(e.Changes) != 1 || e.Changes[0].Path != id+".txt" || e.ChangesNote != "noted "+id {
			t.Errorf("%s's end carries %+v, %q; want its checkpoint's result", id, e.Changes, e.ChangesNote)
		}
	}
	for _, id := range []string{"r", "u"} {
		if e := ends[id]; e.Changes != nil || e.ChangesNote != "" {
			t.Errorf("%s's end carries changes %+v %q, but it took no checkpoint", id, e.Changes, e.ChangesNote)
		}
	}
}

// A call the user denies never runs, so it takes no checkpoint; the one
// allowed after it does.
func TestDeniedCallsTakeNoCheckpoint(t *testing.T) {
	t.Parallel()
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "no", Name: "bash", Args: map[string]any{"command": "touch denied"}},
				{ID: "yes", Name: "bash", Args: map[string]any{"command": "touch allowed"}},
			}}
		}
		return fakemodel.Reply{Text: "done"}
	}
	rec := &recordingCheckpoints{}
	h := newHarness(t, script, func(c *Config) {
		c.Checkpoints = rec
		c.Permission = toolpolicy.PermissionAsk
		c.Approve = func(ctx context.Context, a toolpolicy.Approval) (bool, error) {
			return a.Command == "touch allowed", nil
		}
	})
	rec.watch = map[string]string{"yes": filepath.Join(h.root, "allowed")}
	if _, err := h.ag.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	got := rec.seen()
	if len(got) != 1 || got[0].call.ToolCallID != "yes" || !got[0].afterCalled || !got[0].after {
		t.Fatalf("checkpoints = %+v, want the allowed call's only", got)
	}
	if exists(filepath.Join(h.root, "denied")) {
		t.Error("the denied command ran")
	}
}

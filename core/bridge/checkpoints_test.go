package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// bracket is one call a recording checkpointer saw: the call, whether the
// file it watches existed at Before and at After.
type bracket struct {
	call          checkpoints.Call
	before, after bool
	closed        bool
}

// recorder records the checkpoints the host takes; watch names the file
// each call id makes, so the test can tell Before came before pi's tool
// and After after it.
type recorder struct {
	watch map[string]string
	mu    sync.Mutex
	seen  []*bracket
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (r *recorder) Before(_ context.Context, c checkpoints.Call) toolpolicy.Checkpoint {
	b := &bracket{call: c, before: fileExists(r.watch[c.ToolCallID])}
	r.mu.Lock()
	r.seen = append(r.seen, b)
	r.mu.Unlock()
	return after(func() checkpoints.Result {
		r.mu.Lock()
		defer r.mu.Unlock()
		b.after, b.closed = fileExists(r.watch[c.ToolCallID]), true
		return checkpoints.Result{Changes: []events.FileChange{{N: 1, Path: "a.txt", Status: checkpoints.StatusAdded, Added: 1}}, Note: "note of " + c.ToolCallID}
	})
}

type after func() checkpoints.Result

func (f after) After(context.Context) checkpoints.Result { return f() }

func (r *recorder) calls() []*bracket {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// A write pi is let run is bracketed by a checkpoint naming its confined
// target and the assistant entry pi synced (leafId), closed at its
// tool_result, and its end is told the changes once; a bash call's names
// no paths; a read takes none; a call blocked (refused by confinement, or
// denied) takes none and so never gets an After.
func TestHostCheckpointsTheCallsPiRuns(t *testing.T) {
	t.Parallel()
	root := project(t)
	rec := &recorder{watch: map[string]string{"w": filepath.Join(root, "new", "a.txt"), "b": filepath.Join(root, "b.txt")}}
	ask := func(ctx context.Context, a events.Approval) (bool, error) { return a.Command != "rm -rf ~", nil }
	d := NewDecisions(Deps{Root: root, Permission: toolpolicy.PermissionAsk, Approve: ask, Checkpoints: rec})
	defer d.Close()
	ctx := context.Background()
	calls := []struct {
		id, tool, input string
		block           bool
	}{
		{"w", "write", `{"path":"new/a.txt","content":"alpha\n"}`, false},
		{"b", "bash", `{"command":"echo beta > b.txt"}`, false},
		{"r", "read", `{"path":"top.txt"}`, false},
		{"out", "write", `{"path":"../outside/x.txt","content":"x"}`, true},
		{"no", "bash", `{"command":"rm -rf ~"}`, true},
	}
	// pi asks about every call of the message first, then runs the ones let
	// run together; their results come as each ends.
	for _, c := range calls {
		r, err := d.ToolCall(ctx, ToolCallRequest{ToolCallID: c.id, ToolName: c.tool, Input: json.RawMessage(c.input), LeafID: "asst1"})
		if err != nil || r.Block != c.block {
			t.Fatalf("%s: %+v, %v; want block %v", c.id, r, err, c.block)
		}
	}
	write(t, filepath.Join(root, "b.txt"), "beta\n")
	write(t, filepath.Join(root, "new", "a.txt"), "alpha\n")
	for _, id := range []string{"b", "r", "w"} {
		var in json.RawMessage
		var tool string
		for _, c := range calls {
			if c.id == id {
				in, tool = json.RawMessage(c.input), c.tool
			}
		}
		if _, err := d.ToolResult(ctx, ToolResultRequest{ToolCallID: id, ToolName: tool, Input: in, Content: []Content{{Type: "text", Text: "ok"}}, LeafID: "asst1"}); err != nil {
			t.Fatal(err)
		}
	}
	got := rec.calls()
	if len(got) != 2 {
		t.Fatalf("%d checkpoints, want write's and bash's: %+v", len(got), got)
	}
	byID := map[string]*bracket{}
	for _, b := range got {
		byID[b.call.ToolCallID] = b
		if b.before || !b.after || !b.closed {
			t.Errorf("%s: file before %v, after %v (After called %v); want Before before the tool and After at its result", b.call.ToolCallID, b.before, b.after, b.closed)
		}
	}
	if w := byID["w"]; w == nil || w.call.Tool != "write" || w.call.Entry != "asst1" || !slices.Equal(w.call.Paths, []string{filepath.Join(root, "new", "a.txt")}) {
		t.Errorf("write's checkpoint = %+v", w)
	}
	if b := byID["b"]; b == nil || b.call.Tool != "bash" || b.call.Entry != "asst1" || b.call.Paths != nil {
		t.Errorf("bash's checkpoint = %+v", b)
	}
	if ch, note := d.ToolChanges("w"); len(ch) != 1 || ch[0].Path != "a.txt" || note != "note of w" {
		t.Errorf("ToolChanges(w) = %+v, %q", ch, note)
	}
	if ch, note := d.ToolChanges("w"); ch != nil || note != "" {
		t.Errorf("asked again: %+v, %q; the result goes once told", ch, note)
	}
	for _, id := range []string{"r", "out", "no"} {
		if ch, note := d.ToolChanges(id); ch != nil || note != "" {
			t.Errorf("ToolChanges(%s) = %+v, %q; it took no checkpoint", id, ch, note)
		}
	}
	// The blocked calls' results (pi reports them as errors) close nothing.
	for _, id := range []string{"out", "no"} {
		d.ToolResult(ctx, ToolResultRequest{ToolCallID: id, ToolName: "bash", IsError: true})
	}
	if n := len(rec.calls()); n != 2 {
		t.Errorf("%d checkpoints after the blocked calls' results, want still 2", n)
	}
}

// A call whose tool_result never comes (pi died, an abort) does not hold
// its mark for the runtime's life: past the bound the oldest go, and
// Close drops the rest.
func TestHostDropsTheCheckpointsOfCallsThatNeverEnd(t *testing.T) {
	t.Parallel()
	root := project(t)
	rec := &recorder{}
	d := NewDecisions(Deps{Root: root, Permission: toolpolicy.PermissionFullAuto, Checkpoints: rec})
	ctx := context.Background()
	for i := range maxPendingCheckpoints + 10 {
		if _, err := d.ToolCall(ctx, ToolCallRequest{ToolCallID: fmt.Sprint(i), ToolName: "bash", Input: json.RawMessage(`{"command":"true"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	held, order := len(d.marks.byID), len(d.marks.order)
	_, oldest := d.marks.byID["0"]
	_, newest := d.marks.byID[fmt.Sprint(maxPendingCheckpoints+9)]
	d.mu.Unlock()
	if held != maxPendingCheckpoints || order > 2*maxPendingCheckpoints || oldest || !newest {
		t.Errorf("held %d marks (order %d), oldest kept %v, newest kept %v; want the newest %d", held, order, oldest, newest, maxPendingCheckpoints)
	}
	d.Close()
	d.mu.Lock()
	held = len(d.marks.byID)
	d.mu.Unlock()
	if held != 0 {
		t.Errorf("%d marks held after Close", held)
	}
}

// With real pi, a message's calls (run at once) are bracketed as the
// host lets them run: Entry is the assistant entry of pi's file that holds
// the calls (the leaf pi synced before its tool_call hooks), Before sees
// the files as they were, After as the tool left them; a denied call gets
// neither.
func TestRealPiCheckpointsAtTheBridge(t *testing.T) {
	pi := findPi(t)
	root := project(t)
	session := filepath.Join(t.TempDir(), "s.jsonl")
	model := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "w", Name: "write", Args: map[string]any{"path": "new/a.txt", "content": "alpha\n"}},
				{ID: "b", Name: "bash", Args: map[string]any{"command": "echo beta > b.txt"}},
				{ID: "no", Name: "bash", Args: map[string]any{"command": "touch nope"}},
			}}
		}
		return fakemodel.Reply{Text: "done"}
	})
	rec := &recorder{watch: map[string]string{"w": filepath.Join(root, "new", "a.txt"), "b": filepath.Join(root, "b.txt"), "no": filepath.Join(root, "nope")}}
	h := NewDecisions(Deps{Root: root, SessionFile: session, Permission: toolpolicy.PermissionAsk, Checkpoints: rec,
		Approve: func(_ context.Context, a events.Approval) (bool, error) { return a.Command != "touch nope", nil }})
	defer h.Close()
	srv, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	runPi(t, pi, root, session, srv, model, "go")

	b, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	var assistant string
	for _, line := range strings.Split(string(b), "\n") {
		var e struct {
			ID      string `json:"id"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
					ID   string `json:"id"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || e.Message.Role != "assistant" {
			continue
		}
		for _, c := range e.Message.Content {
			if c.Type == "toolCall" && c.ID == "w" {
				assistant = e.ID
			}
		}
	}
	if assistant == "" {
		t.Fatalf("no assistant entry holds the calls in pi's file:\n%s", b)
	}
	got := rec.calls()
	if len(got) != 2 {
		t.Fatalf("%d checkpoints, want write's and the allowed bash's: %+v", len(got), got)
	}
	for _, c := range got {
		if c.call.Entry != assistant || c.before || !c.after || !c.closed {
			t.Errorf("%s: entry %q (want %q), file before %v, after %v, closed %v", c.call.ToolCallID, c.call.Entry, assistant, c.before, c.after, c.closed)
		}
	}
	if ch, _ := h.ToolChanges("w"); len(ch) != 1 {
		t.Errorf("write's changes = %+v", ch)
	}
	if fileExists(filepath.Join(root, "nope")) {
		t.Error("the denied command ran")
	}
}

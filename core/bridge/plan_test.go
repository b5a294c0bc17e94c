package bridge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestPlanDecisions: in plan mode the host blocks every call but the
// read-only ones with plan mode's sentence, before asking anybody, even in
// full-auto; a tool whose author marks it read-only runs, unless it bears
// the name of a tool that changes things. The system answer carries the
// plan section and the tools pi is to offer.
func TestPlanDecisions(t *testing.T) {
	root := project(t)
	var plan atomic.Bool
	plan.Store(true)
	asked := 0
	d := NewDecisions(Deps{Root: root, SessionFile: filepath.Join(t.TempDir(), "s.jsonl"), Permission: toolpolicy.PermissionFullAuto,
		System:  func(context.Context) (string, error) { return "<instructions>\nROOT\n</instructions>", nil },
		Approve: func(context.Context, events.Approval) (bool, error) { asked++; return true, nil },
		Plan:    plan.Load})
	defer d.Close()
	ctx := context.Background()
	for _, c := range []struct {
		tool     string
		readOnly bool
		input    string
		blocked  bool
	}{
		{"write", false, `{"path":"x.txt","content":"x"}`, true},
		{"edit", false, `{"path":"x.txt","oldText":"a","newText":"b"}`, true},
		{"bash", true, `{"command":"touch x"}`, true},
		{"remember", true, `{}`, true},
		{"deploy", false, `{}`, true},
		{"mcp__docs__search", true, `{"q":"x"}`, false},
		{"read", false, `{"path":"sub/file.txt"}`, false},
		{"ls", false, `{}`, false},
	} {
		r, err := d.ToolCall(ctx, ToolCallRequest{ToolCallID: "c_" + c.tool, ToolName: c.tool, Input: json.RawMessage(c.input), ReadOnly: c.readOnly})
		if err != nil || r.Block != c.blocked {
			t.Errorf("%s: %+v %v, want blocked %v", c.tool, r, err, c.blocked)
		}
		if c.blocked && r.Reason != entries.PlanRefusal(c.tool) {
			t.Errorf("%s blocked with %q", c.tool, r.Reason)
		}
	}
	if asked != 0 {
		t.Errorf("asked %d times in plan mode", asked)
	}
	sys, err := d.System(ctx, SystemRequest{Tools: []ToolState{{Name: "read"}, {Name: "bash", ReadOnly: true}, {Name: "write"}, {Name: "mcp__docs__search", ReadOnly: true}, {Name: "deploy"}}})
	if err != nil || !sys.Plan || !strings.HasPrefix(sys.Text, "<instructions>") || !strings.Contains(sys.Text, "# Plan mode") {
		t.Fatalf("system in plan mode = %+v %v", sys, err)
	}
	if want := []string{"read", "grep", "find", "ls", "mcp__docs__search"}; !slices.Equal(sys.Tools, want) {
		t.Errorf("plan tools = %v, want %v", sys.Tools, want)
	}

	// Out of plan mode nothing of it stays: full-auto lets the write run.
	plan.Store(false)
	if r, _ := d.ToolCall(ctx, ToolCallRequest{ToolCallID: "w2", ToolName: "write", Input: json.RawMessage(`{"path":"x.txt","content":"x"}`)}); r.Block {
		t.Errorf("write after plan mode: %+v", r)
	}
	if sys, _ := d.System(ctx, SystemRequest{}); sys.Plan || sys.Tools != nil || strings.Contains(sys.Text, "Plan mode") {
		t.Errorf("system after plan mode = %+v", sys)
	}
}

// TestRealPiPlanMode: the user's real pi, with the bridge, in plan mode:
// the model is offered the read-only tools only and told to plan; the
// write and the bash it calls anyway are blocked with plan mode's sentence
// and nothing is written, although the permission mode is full-auto. Out
// of plan mode, in the same pi, the tools pi had come back.
func TestRealPiPlanMode(t *testing.T) {
	pi := findPi(t)
	root := project(t)
	session := filepath.Join(t.TempDir(), "s.jsonl")
	model := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "c_write", Name: "write", Args: map[string]any{"path": "plan.txt", "content": "written"}},
				{ID: "c_bash", Name: "bash", Args: map[string]any{"command": "touch ran.txt"}},
				{ID: "c_read", Name: "read", Args: map[string]any{"path": "sub/file.txt"}},
			}}
		}
		return fakemodel.Reply{Text: "Plan:\n1. write plan.txt"}
	})
	var plan atomic.Bool
	plan.Store(true)
	asked := 0
	h := NewDecisions(Deps{Root: root, SessionFile: session, Permission: toolpolicy.PermissionFullAuto,
		Approve: func(context.Context, events.Approval) (bool, error) { asked++; return true, nil },
		Plan:    plan.Load})
	defer h.Close()
	srv, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	runPiEach(t, pi, root, session, srv, model, []string{"plan it", "thanks"}, func(int) { plan.Store(false) })

	for _, f := range []string{"plan.txt", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			t.Errorf("%s was written in plan mode", f)
		}
	}
	if asked != 0 {
		t.Errorf("the approver was asked %d times in plan mode", asked)
	}
	reqs := model.Requests()
	if len(reqs) < 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	if got := toolNames(reqs[0].Raw); got != `"read","grep","find","ls"` {
		t.Errorf("pi offered %s in plan mode, want read, grep, find, ls", got)
	}
	if !strings.Contains(reqs[0].System, "# Plan mode") {
		t.Errorf("pi's system prompt lacks the plan section:\n%s", reqs[0].System)
	}
	results := toolResults(reqs[1].Raw)
	for _, id := range []string{"c_write", "c_bash"} {
		if r := results[id]; !strings.Contains(r, "Refused: plan mode is on") {
			t.Errorf("%s gave %q, want plan mode's refusal", id, r)
		}
	}
	if r := results["c_read"]; !strings.Contains(r, "hello from sub") {
		t.Errorf("the read in plan mode gave %q", r)
	}
	last := reqs[len(reqs)-1]
	if got := toolNames(last.Raw); !strings.Contains(got, `"write"`) || !strings.Contains(got, `"bash"`) || strings.Contains(last.System, "# Plan mode") {
		t.Errorf("after plan mode pi offers %s (plan section kept: %v)", got, strings.Contains(last.System, "# Plan mode"))
	}
}

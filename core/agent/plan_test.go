package agent

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
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// offeredTools names the tools an OpenAI-style request offered the model.
func offeredTools(req fakemodel.Request) []string {
	var out []string
	tools, _ := req.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		fn, _ := m["function"].(map[string]any)
		name, _ := fn["name"].(string)
		out = append(out, name)
	}
	return out
}

// TestPlanModeOffersReadOnlyToolsAndRefusesTheRest: in plan mode the
// model is offered read, grep, find and ls only and told to plan; a write
// and a bash it tries anyway are refused with a sentence it reads, before
// any approval is asked (full-auto and an approver saying yes change
// nothing), and nothing is written. Out of plan mode the same session
// offers every tool again.
func TestPlanModeOffersReadOnlyToolsAndRefusesTheRest(t *testing.T) {
	var plan atomic.Bool
	plan.Store(true)
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		switch n {
		case 0:
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "w", Name: "write", Args: map[string]any{"path": "notes.txt", "content": "x"}},
				{ID: "b", Name: "bash", Args: map[string]any{"command": "touch ran.txt"}},
				{ID: "r", Name: "read", Args: map[string]any{"path": "a.txt"}},
			}}
		case 1:
			return fakemodel.Reply{Text: "Plan:\n1. Write notes.txt"}
		}
		return fakemodel.Reply{Text: "ok"}
	}
	asked := 0
	h := newHarness(t, script, func(c *Config) {
		c.Permission = toolpolicy.PermissionFullAuto
		c.Approve = func(context.Context, toolpolicy.Approval) (bool, error) { asked++; return true, nil }
		c.Plan = plan.Load
		c.Tools = append(slices.Clone(toolpolicy.DefaultTools), toolpolicy.ToolRemember)
	})
	os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello\n"), 0o644)
	res, err := h.ag.Prompt(context.Background(), "plan the notes")
	if err != nil || !strings.Contains(res.Text, "Plan:") {
		t.Fatalf("prompt = %+v, %v", res, err)
	}
	for _, f := range []string{"notes.txt", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(h.root, f)); err == nil {
			t.Errorf("%s exists: plan mode let a call change the project", f)
		}
	}
	if asked != 0 {
		t.Errorf("the approver was asked %d times; plan mode refuses before asking", asked)
	}
	reqs := h.fake.Requests()
	if got := offeredTools(reqs[0]); !slices.Equal(got, []string{"read", "ls", "grep", "find"}) {
		t.Errorf("plan mode offered %v, want the read-only tools only", got)
	}
	if !strings.Contains(reqs[0].System, "# Plan mode") || !strings.HasPrefix(reqs[0].System, "sys") {
		t.Errorf("the system prompt lacks the plan section:\n%s", reqs[0].System)
	}
	results := map[string]entries.StoredMessage{}
	for _, e := range h.sess.Path() {
		if e.Type == sessions.TypeToolResult {
			var sm entries.StoredMessage
			json.Unmarshal(e.Payload(), &sm)
			results[sm.Tool] = sm
		}
	}
	for _, tool := range []string{"write", "bash"} {
		sm := results[tool]
		text := textOfResult(sm)
		if !sm.Message.Parts[0].IsError || !strings.HasPrefix(text, "Refused: plan mode is on") || !strings.Contains(text, "this "+tool+" call did not run") {
			t.Errorf("%s result = %q, want plan mode's refusal", tool, text)
		}
	}
	if text := textOfResult(results["read"]); !strings.Contains(text, "hello") {
		t.Errorf("read in plan mode = %q", text)
	}
	var refused []string
	for len(h.evs) > 0 {
		if e, ok := (<-h.evs).(events.ToolEnded); ok && e.IsError && strings.HasPrefix(e.Result, "Refused: plan mode") {
			refused = append(refused, e.ToolName)
		}
	}
	if !slices.Equal(refused, []string{"write", "bash"}) {
		t.Errorf("refusals shown: %v", refused)
	}

	// Plan mode off: the same agent offers every tool, with no plan section.
	plan.Store(false)
	if _, err := h.ag.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	last := h.fake.Requests()[len(h.fake.Requests())-1]
	if got := offeredTools(last); len(got) != 8 || strings.Contains(last.System, "# Plan mode") {
		t.Errorf("after plan mode: tools %v, plan section kept: %v", got, strings.Contains(last.System, "# Plan mode"))
	}
}

func textOfResult(sm entries.StoredMessage) string {
	if len(sm.Message.Parts) == 0 {
		return ""
	}
	return sm.Message.Parts[0].Text
}

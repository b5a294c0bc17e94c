package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// tryToChangeThenPlan writes, edits and runs a command (which plan mode
// refuses), then answers with a plan that quotes what the refusals said.
func tryToChangeThenPlan(_ int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{
			{ID: "w", Name: "write", Args: map[string]string{"path": "greet.txt", "content": "changed\n"}},
			{ID: "e", Name: "edit", Args: map[string]string{"path": "greet.txt", "oldText": "hello", "newText": "bye"}},
			{ID: "b", Name: "bash", Args: map[string]string{"command": "touch ran.txt"}},
		}}
	}
	return fakemodel.Reply{Text: "Plan:\n1. Change greet.txt.\n(last result: " + req.LastToolResult + ")"}
}

// prompt --plan prints the plan and changes nothing, even with --yes: the
// write, the edit and the command are refused by plan mode (not denied for
// want of approval: the exit status is 0), the repository is clean, and
// the model was offered the read-only tools only.
func TestPromptPlanWritesNothingEvenWithYes(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, tryToChangeThenPlan)
	code, out, errs := c.run("", "prompt", "--project", "mono", "--plan", "--yes", "change the greeting")
	if code != 0 || !strings.HasPrefix(out, "Plan:\n1. Change greet.txt.") || !strings.Contains(out, "Refused: plan mode is on") {
		t.Fatalf("prompt --plan --yes = %d %q %q", code, out, errs)
	}
	if !strings.Contains(errs, "plan mode: nothing was changed") || !strings.Contains(errs, "pi-tui prompt --session ") {
		t.Errorf("stderr = %q, want the note saying how to run the plan", errs)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "hello\n" {
		t.Errorf("greet.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Error("the command ran in plan mode")
	}
	if st := worktreetest.Git(t, root, "status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(st) != "" {
		t.Errorf("the repository changed in plan mode:\n%s", st)
	}

	// --json says the same: three refused calls, no denial.
	_, out, _ = c.run("", "prompt", "--project", "mono", "--plan", "--yes", "--json", "again")
	refused := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev map[string]any
		json.Unmarshal([]byte(l), &ev)
		if ev["type"] == "tool_execution_end" {
			if r, _ := ev["result"].(string); ev["isError"] == true && strings.HasPrefix(r, "Refused: plan mode is on") && ev["denied"] == nil {
				refused++
			}
		}
	}
	if refused != 3 {
		t.Errorf("%d refused calls in the event stream, want 3:\n%s", refused, out)
	}
}

// rpc's set_plan turns plan mode on for the session's next prompts (the
// write is refused, nothing changes) and off again; get_state says which.
func TestRPCSetPlan(t *testing.T) {
	t.Parallel()
	c, root := worktreeCLI(t, tryToChangeThenPlan)
	r := startRPC(t, c, "--project", "mono")
	r.send(`{"id":"s1","type":"set_plan","plan":true}`)
	got := r.until(func(m map[string]any) bool { return m["id"] == "s1" })
	if data, _ := got[len(got)-1]["data"].(map[string]any); got[len(got)-1]["success"] != true || data["plan"] != true {
		t.Fatalf("set_plan = %v", got[len(got)-1])
	}
	r.send(`{"id":"g1","type":"get_state"}`)
	got = r.until(func(m map[string]any) bool { return m["id"] == "g1" })
	if data, _ := got[len(got)-1]["data"].(map[string]any); data["plan"] != true {
		t.Errorf("get_state in plan mode = %v", data)
	}
	evs := r.prompt("change the greeting")
	for _, e := range typed(evs, "tool_execution_end") {
		if res, _ := e["result"].(string); !strings.HasPrefix(res, "Refused: plan mode is on") {
			t.Errorf("in plan mode %v ran: %q", e["toolName"], res)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(root, "greet.txt")); string(got) != "hello\n" {
		t.Errorf("greet.txt = %q", got)
	}
	r.send(`{"id":"s2","type":"set_plan"}`)
	got = r.until(func(m map[string]any) bool { return m["id"] == "s2" })
	if e, _ := got[len(got)-1]["error"].(string); got[len(got)-1]["success"] != false || !strings.Contains(e, `"plan": true or false`) {
		t.Errorf("set_plan without plan = %v", got[len(got)-1])
	}
	r.send(`{"id":"s3","type":"set_plan","plan":false}`)
	r.until(func(m map[string]any) bool { return m["id"] == "s3" })
	r.send(`{"id":"g2","type":"get_state"}`)
	got = r.until(func(m map[string]any) bool { return m["id"] == "g2" })
	if data, _ := got[len(got)-1]["data"].(map[string]any); data["plan"] != false {
		t.Errorf("get_state after plan mode = %v", data)
	}
}

// prompt --plan --yes on the user's real pi: the write the model asks for
// is refused by pi-tui's bridge with plan mode's sentence, nothing is
// written, exit 0, and pi offered the model the read-only tools only.
func TestRealPiPromptPlanWritesNothing(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, callsThenAnswer)
	code, evs, errs := promptPi(t, c, "--plan", "--yes", "write notes.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	launchedPi(t, evs)
	ends := typed(evs, "tool_execution_end")
	if len(ends) != 1 || ends[0]["isError"] != true || !strings.HasPrefix(fmt.Sprint(ends[0]["result"]), "Refused: plan mode is on") {
		t.Errorf("the write ended %v, want plan mode's refusal", ends)
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); err == nil {
		t.Error("the write happened in plan mode")
	}
	if res := lastResult(fake); !strings.Contains(res, "Refused: plan mode is on") {
		t.Errorf("the model read %q", res)
	}
	first := fake.Requests()[0]
	if got := offered(first); !slices.Equal(got, []string{"read", "grep", "find", "ls"}) || !strings.Contains(first.System, "# Plan mode") {
		t.Errorf("pi offered %v (plan section: %v)", got, strings.Contains(first.System, "# Plan mode"))
	}
}

// offered names the tools an OpenAI-style request offered the model.
func offered(req fakemodel.Request) []string {
	var out []string
	tools, _ := req.Body["tools"].([]any)
	for _, t := range tools {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		out = append(out, name)
	}
	return out
}

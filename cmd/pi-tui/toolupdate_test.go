package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// bashTwice runs a bash command that prints two lines, then answers.
func bashTwice(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": "echo one; printf 'two\\x1b[2J\\n'"}}}}
	}
	return fakemodel.Reply{Text: "ran it"}
}

// liveOutputOf joins the tool_execution_update deltas of call b1 that
// come before its tool_execution_end.
func liveOutputOf(t *testing.T, evs []map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, e := range evs {
		switch e["type"] {
		case "tool_execution_update":
			if e["toolCallId"] != "b1" || e["toolName"] != "bash" {
				t.Errorf("update of the wrong call: %v", e)
			}
			d, _ := e["delta"].(string)
			b.WriteString(d)
		case "tool_execution_end":
			return b.String()
		}
	}
	t.Fatalf("no tool_execution_end in %v", evs)
	return ""
}

// TestPromptJSONStreamsBashOutput: prompt --json writes a running bash
// command's output as tool_execution_update events, before its end.
func TestPromptJSONStreamsBashOutput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, bashTwice)
	code, out, errs := c.run("", "prompt", "--project", "mono", "--json", "--yes", "run it")
	if code != 0 {
		t.Fatalf("prompt --json = %d %s", code, errs)
	}
	var evs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		evs = append(evs, e)
	}
	if got := liveOutputOf(t, evs); got != "one\ntwo\x1b[2J\n" {
		t.Errorf("live output = %q", got)
	}
}

// TestRPCStreamsBashOutput: rpc writes the same events (the project runs
// bash without asking: rpc has no one to ask).
func TestRPCStreamsBashOutput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, bashTwice)
	a := &app{ctx: context.Background(), env: func(k string) string { return c.env[k] }}
	h, err := a.openHost()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	a.close()
	r := startRPC(t, c, "--project", "mono")
	if got := liveOutputOf(t, r.prompt("run it")); got != "one\ntwo\x1b[2J\n" {
		t.Errorf("live output = %q", got)
	}
}

package sessions

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// findPi returns the command that runs the real pi, or skips the test.
func findPi(t *testing.T) []string {
	t.Helper()
	pi, skip := realpi.Command()
	if pi == nil {
		t.Skip(skip)
	}
	return pi
}

// piRPC runs pi in rpc mode in cwd with agentDir and extra arguments, sends
// cmds and returns each response's data.
func piRPC(t *testing.T, pi []string, cwd, agentDir string, args []string, cmds ...string) []json.RawMessage {
	t.Helper()
	return realpi.RPC(t, pi, cwd, agentDir, args, cmds...)
}

// A session begun in pi-tui is the one pi --continue picks in the project's
// folder, and pi sees its whole history: the messages with the tool call
// and its result, the compaction, the name; pi-tui's records never reach
// pi's messages.
func TestRealPiContinuesAPiTuiSession(t *testing.T) {
	pi := findPi(t)
	e := setup(t, t.TempDir())
	ctx := context.Background()
	s, _ := e.m.Create(ctx, "p1", "")
	mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("read x")))
	call := provider.Part{Type: provider.PartToolCall, ToolCallID: "c1", ToolName: "read", Arguments: json.RawMessage(`{"path":"x"}`)}
	a := msg(provider.RoleAssistant, text("reading"), call)
	a.StopReason, a.Model = provider.StopToolUse, "anthropic/claude-sonnet-4-5"
	mustAppend(t, s, TypeAssistant, a)
	r := msg(provider.RoleTool, provider.Part{Type: provider.PartToolResult, ToolCallID: "c1", ToolName: "read", Text: "contents"})
	r.Path, r.ToolMs = "x", 1
	tr := mustAppend(t, s, TypeToolResult, r)
	mustAppend(t, s, TypeCustom, map[string]any{"kind": "subdir_context", "toolResultId": tr.ID})
	fin := msg(provider.RoleAssistant, text("done"))
	fin.StopReason, fin.Model = provider.StopEnd, "anthropic/claude-sonnet-4-5"
	mustAppend(t, s, TypeAssistant, fin)
	u2 := mustAppend(t, s, TypeUser, msg(provider.RoleUser, text("next")))
	mustAppend(t, s, TypeAssistant, fin)
	mustAppend(t, s, TypeCompaction, Compaction{Summary: "read x", FirstKeptEntryID: u2.ID, TokensBefore: 10})
	s.SetTitle(ctx, "From pi-tui")
	s.Close()

	res := piRPC(t, pi, e.root, e.agent, []string{"--continue"}, `{"type":"get_state"}`, `{"type":"get_messages"}`)
	var st struct {
		SessionID   string `json:"sessionId"`
		SessionName string `json:"sessionName"`
	}
	json.Unmarshal(res[0], &st)
	if st.SessionID != s.ID() {
		t.Fatalf("pi --continue opened %q, want pi-tui's %q (state %s)", st.SessionID, s.ID(), res[0])
	}
	var got struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	json.Unmarshal(res[1], &got)
	var roles []string
	for _, m := range got.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, " ") != "compactionSummary user assistant" {
		t.Errorf("pi's messages: %v", roles)
	}
	if st.SessionName != "" && st.SessionName != "From pi-tui" {
		t.Errorf("pi's name = %q", st.SessionName)
	}
}

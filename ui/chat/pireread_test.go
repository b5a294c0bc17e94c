package chat

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/bridge"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// piWritesToolTurn appends to session id's file what pi and its bridge
// write for one read of sub/notes.txt by call c1: the answer calling it,
// pi's own tool result (no time, no preflight: pi has no place for
// them) and the bridge's delivery record, which names the call.
func piWritesToolTurn(t *testing.T, m *Model, id string) {
	t.Helper()
	ctx := context.Background()
	elsewhere, err := host.Open(ctx, m.d.Host.Places, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close()
	pi, err := elsewhere.Sessions.Open(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer pi.Close()
	call := entries.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{
		{Type: provider.PartToolCall, ToolCallID: "c1", ToolName: "read", Arguments: json.RawMessage(`{"path":"sub/notes.txt"}`)}}}, StopReason: provider.StopToolUse}
	result := entries.StoredMessage{Tool: "read", Message: provider.Message{Role: provider.RoleTool, Parts: []provider.Part{
		{Type: provider.PartToolResult, ToolCallID: "c1", ToolName: "read", Text: "notes"}}}}
	record := entries.DeliveryRecord{Kind: entries.CustomSubdirContext, ToolCallID: "c1", Labels: []string{"AGENTS.md", "sub/AGENTS.md"},
		Delivered: []entries.Delivered{{Label: "sub/AGENTS.md", Path: "sub/AGENTS.md", Digest: "d", Bytes: 35, Via: "block"}}}
	for _, e := range []struct {
		typ string
		v   any
	}{{sessions.TypeAssistant, call}, {sessions.TypeToolResult, result}, {sessions.TypeCustom, record}} {
		if _, err := pi.Append(ctx, e.typ, e.v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(pi.File())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"customType":"`+bridge.RecordType+`"`) || strings.Contains(string(b), `"preflight"`) {
		t.Fatalf("the file is not as pi and its bridge write it:\n%s", b)
	}
}

// A reopened session on the pi engine: the call this program's turn made
// keeps its time, preflight and delivered instructions when pi's appends
// are read back (pi's stored result has none of them), and reopened
// again, the call shows the instructions its result carried, from the
// bridge's record.
func TestPiRereadKeepsToolDetails(t *testing.T) {
	m := testModel(t)
	ctx := context.Background()
	s := realSession(t, m)
	user := entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "please read sub/notes.txt"}}}}
	if _, err := s.Append(ctx, sessions.TypeUser, user); err != nil {
		t.Fatal(err)
	}
	m.SetSize(120, 30)
	opened := m.Open(s.ID())().(openedMsg)
	m.Update(opened)

	// This program's turn, as its events say it.
	m.turn = turnPrompt
	sid := s.ID()
	for _, e := range []events.Event{
		events.AgentStarted{SessionID: sid},
		events.ToolStarted{SessionID: sid, ToolCallID: "c1", ToolName: "read", Args: json.RawMessage(`{"path":"sub/notes.txt"}`)},
		events.ToolEnded{SessionID: sid, ToolCallID: "c1", ToolName: "read", Path: "sub/notes.txt", Result: "notes", ToolMs: 3,
			Preflight: &events.Preflight{Ms: 1.1, Cache: "miss"},
			Delivery:  &events.Delivery{Chain: []string{"AGENTS.md", "sub/AGENTS.md"}, Delivered: []events.DeliveredFile{{Label: "sub/AGENTS.md", Bytes: 35, Via: "block"}}}},
		events.AgentEnded{SessionID: sid, StopReason: provider.StopEnd},
	} {
		m.event(e)
	}
	const full = "✓ read sub/notes.txt · 3ms · preflight 1.1ms miss · instructions +sub/AGENTS.md (35 B)"
	if v := m.View(); !strings.Contains(v, full) {
		t.Fatalf("the live call:\n%s", v)
	}

	// pi's appends arrive and the branch is reread.
	piWritesToolTurn(t, m, sid)
	if n, err := opened.sess.Refresh(ctx); err != nil || n == 0 {
		t.Fatalf("refresh read %d entries: %v", n, err)
	}
	m.Update(m.Update(arrivedMsg{id: sid, sess: opened.sess})())
	if v := m.View(); !strings.Contains(v, full) {
		t.Errorf("after pi's appends were read:\n%s", v)
	}

	// Reopened: what the file says of the call.
	m.close()
	m.Update(m.Open(sid)().(openedMsg))
	v := m.View()
	if !strings.Contains(v, "✓ read sub/notes.txt · instructions +sub/AGENTS.md (35 B)") {
		t.Errorf("reopened, the call does not show its instructions:\n%s", v)
	}
}

package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
)

// wireSamples is one event of every kind rpc and prompt --json write, with
// the fields each carries, in the order of core/events/testdata/wire.jsonl.
func wireSamples() []Event {
	usage := &provider.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadTokens: 1000, CacheWriteTokens: 7}
	return []Event{
		{Type: "runtime_launched", SessionID: "s1", Reason: "new", Model: "fake/m1"},
		{Type: "runtime_reused", SessionID: "s1", Reason: "unchanged", Model: "fake/m1"},
		{Type: "runtime_retired", SessionID: "s1", Reason: "memory-changed", Model: "fake/m1"},
		{Type: EventAgentStart, SessionID: "s1"},
		{Type: EventMessageUpdate, SessionID: "s1", Delta: "Hello <b>&amp; \"world\"\n\u2028 \x1b[31m é"},
		{Type: EventMessageUpdate, SessionID: "s1", Thinking: "weigh <a> & <b>"},
		{Type: EventMessageEnd, SessionID: "s1", Text: "I will read it.", StopReason: "toolUse", Usage: usage},
		{Type: EventMessageEnd, SessionID: "s1", Text: "Half an ans", StopReason: provider.StopAborted, Usage: &provider.Usage{}, Error: "context canceled"},
		{Type: EventRetry, SessionID: "s1", Attempt: 1, MaxAttempts: 3, DelayMs: 2000, ErrorMessage: "429 Too Many Requests"},
		{Type: EventToolStart, SessionID: "s1", ToolCallID: "c1", ToolName: "read", Args: json.RawMessage("{\n  \"path\": \"a<b>.go\"\n}")},
		{Type: EventToolUpdate, SessionID: "s1", ToolCallID: "c2", ToolName: "bash", Delta: "ok  \tpkg\t0.5s\n", Skipped: 4096},
		{Type: EventToolEnd, SessionID: "s1", ToolCallID: "c1", ToolName: "read", Path: "packages/api/handler.go", Result: "package api\n",
			Preflight: &PreflightInfo{Ms: 0.25, Cache: "miss", Labels: []string{"AGENTS.md", "packages/api/AGENTS.md"}, Withheld: []string{"x/AGENTS.md"}},
			ToolMs: 1.5, Delivery: &DeliveryInfo{Chain: []string{"AGENTS.md", "packages/api/AGENTS.md"},
				Delivered: []DeliveredFile{{Label: "packages/api/AGENTS.md", Bytes: 22, Truncated: true, Via: "block"}},
				Deferred: []string{"packages/AGENTS.md"}, Untrusted: true, Withheld: []string{"w"}, Fallback: true}},
		{Type: EventToolEnd, SessionID: "s1", ToolCallID: "c3", ToolName: "write", Path: ".git/config", IsError: true,
			Result: "The user denied this write call.", Preflight: &PreflightInfo{Cache: "hit", Fallback: "base"}, Denied: true},
		{Type: EventToolEnd, SessionID: "s1", ToolCallID: "m1", ToolName: "remember", Result: "Saved to project memory", ToolMs: 0.75,
			MemoryChange: &memory.Change{Root: "/p", Action: memory.ActionAdd, Index: 2, After: &memory.Entry{ID: "e1", Title: "Build", Content: "run <task>", By: memory.ByAgent}, Bytes: 321}},
		{Type: EventToolEnd, SessionID: "s1", ToolCallID: "c4", ToolName: "bash", IsError: true, Result: "The user aborted before this tool ran."},
		{Type: EventCompactionStart, SessionID: "s1"},
		{Type: EventCompactionEnd, SessionID: "s1", Summary: "The user wants <tabs>."},
		{Type: EventCompactionEnd, SessionID: "s1", Error: "compaction: the model returned an empty summary"},
		{Type: EventAgentEnd, SessionID: "s1", Text: "Done & dusted.", Usage: usage, StopReason: provider.StopEnd},
		{Type: EventAgentEnd, SessionID: "s1", Usage: &provider.Usage{}, StopReason: provider.StopAborted},
		{Type: EventAgentEnd, SessionID: "s1", Error: "no model is configured", StopReason: provider.StopError},
	}
}

// TestWireGolden: the lines rpc and prompt --json write for each kind of
// event (a json.Encoder without HTML escaping, as cmd/pi-tui's jsonLines).
// The file is the reference a later encoder must reproduce byte for byte.
func TestWireGolden(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range wireSamples() {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	const golden = "../events/testdata/wire.jsonl"
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the wire lines differ from %s:\n%s", golden, buf.Bytes())
	}
}

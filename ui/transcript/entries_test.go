package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// TestTreeTextNamesCallsAsPiDoes: /tree names each tool call by the
// text it acted on, as pi's tree does, with how it ended; a call's
// arguments come from the answer above its result; controls and line
// breaks are shown as text.
func TestTreeTextNamesCallsAsPiDoes(t *testing.T) {
	stored := func(id, parent, typ string, sm entries.StoredMessage) sessions.TreeEntry {
		b, _ := json.Marshal(sm)
		return sessions.TreeEntry{Entry: sessions.NewEntry(id, parent, typ, b), Parent: parent}
	}
	call := func(id, tool, args string) provider.Part {
		return provider.Part{Type: provider.PartToolCall, ToolCallID: id, ToolName: tool, Arguments: json.RawMessage(args)}
	}
	result := func(id, tool, text string, isErr bool) entries.StoredMessage {
		return entries.StoredMessage{Tool: tool, Message: provider.Message{Role: provider.RoleTool,
			Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: id, ToolName: tool, Text: text, IsError: isErr}}}}
	}
	calls := []struct{ tool, args, result, want string }{
		{"bash", `{"command":"make\ntest \u001b[8m"}`, "ok", `[bash: make⏎test \x1b[8m] ✓ ok`},
		{"edit", `{"path":"a.go","oldText":"x","newText":"y"}`, "The user denied this edit call: no", "[edit: a.go] ✗ denied: no"},
		{"grep", `{"pattern":"TODO"}`, "a.go:1", "[grep: /TODO/ in .] ✓ a.go:1"},
		{"find", `{"pattern":"*.go","path":"src"}`, "", "[find: *.go in src] ✓ "},
		{"ls", `{}`, "a.go", "[ls: .] ✓ a.go"},
		{"deploy", `{"target":"staging"}`, "Error: refused\nmore", `[deploy: {"target":"staging"}] ✗ Error: refused`},
		{"bash", `{"command":"exit 3"}`, "Error: out\n\nCommand exited with code 3", "[bash: exit 3] ✗ Command exited with code 3"},
		{"bash", `{"command":"exit 4"}`, "Error: out\n[Exit status 4.]", "[bash: exit 4] ✗ [Exit status 4.]"},
		{"bash", `{"command":"echo oops"}`, "Error: " + entries.PlanRefusal("bash"), "[bash: echo oops] ✗ Error: Refused: plan mode is on, and only tools that read run while planning (read, grep, find, ls, and tools marked read-only), so this bash call did not run and nothing changed."},
	}
	var parts []provider.Part
	for i, c := range calls {
		parts = append(parts, call(string(rune('a'+i)), c.tool, c.args))
	}
	tree := []sessions.TreeEntry{
		stored("u", "", sessions.TypeUser, entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "go"}}}}),
		stored("a", "u", sessions.TypeAssistant, entries.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: parts}}),
	}
	parent := "a"
	for i, c := range calls {
		id := "r" + string(rune('a'+i))
		tree = append(tree, stored(id, parent, sessions.TypeToolResult, result(string(rune('a'+i)), c.tool, c.result, strings.HasPrefix(c.result, "Error") || strings.Contains(c.result, "denied"))))
		parent = id
	}
	byID := func(id string) (sessions.TreeEntry, bool) {
		for _, te := range tree {
			if te.ID == id {
				return te, true
			}
		}
		return sessions.TreeEntry{}, false
	}
	for i, c := range calls {
		got, _ := TreeText(tree[2+i], byID)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.tool, got, c.want)
		}
		if strings.ContainsAny(got, "\x1b\n") {
			t.Errorf("%s: a control is drawn raw: %q", c.tool, got)
		}
	}
	if got, _ := TreeText(tree[1], byID); !strings.HasPrefix(got, `pi: [bash: make⏎test \x1b[8m] [edit: a.go] [grep: /TODO/ in .]`) {
		t.Errorf("the answer's row: %q", got)
	}
}

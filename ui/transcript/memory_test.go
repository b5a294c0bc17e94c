package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// A reopened session shows each remember change under its result, undone
// when the file says so, with the agent's text drawn safely.
func TestReopenedSessionShowsChangesAndUndos(t *testing.T) {
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	result := func(id, call string) sessions.Entry {
		return sessions.NewEntry(id, "", sessions.TypeToolResult, raw(entries.StoredMessage{Tool: "remember",
			Message: provider.Message{Role: provider.RoleTool, Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: call, ToolName: "remember", Text: "Saved"}}}}))
	}
	change := func(result, call, content string) sessions.Entry {
		e := memory.Entry{ID: "m" + call, Content: content, By: memory.ByAgent}
		return sessions.NewEntry("", "", sessions.TypeCustom, raw(entries.MemoryChangeRecord{Kind: entries.CustomMemoryChange, ToolCallID: call, ToolResultID: result,
			Change: memory.Change{Action: memory.ActionAdd, After: &e, Bytes: len(content)}}))
	}
	entries := []sessions.Entry{
		result("r1", "c1"), change("r1", "c1", "first note\x1b[2J"),
		result("r2", "c2"), change("r2", "c2", "second note"),
		sessions.NewEntry("", "", sessions.TypeCustom, raw(entries.MemoryUndoneRecord{Kind: entries.CustomMemoryUndone, ToolCallID: "c2"})),
	}
	items := itemsFrom(entries, nil)
	if len(items) != 2 || items[0].change == nil || items[1].change == nil {
		t.Fatalf("items: %+v", items)
	}
	st := uitest.UI()
	first := strings.Join(items[0].render(st, 160, viewOpts{}), "\n")
	second := strings.Join(items[1].render(st, 100, viewOpts{}), "\n")
	if !strings.Contains(first, "/undo-memory undoes it") || !strings.Contains(first, "+ first note") || strings.Contains(first, "\x1b") {
		t.Errorf("first change:\n%q", first)
	}
	if !strings.Contains(second, "· undone") || strings.Contains(second, "/undo-memory") {
		t.Errorf("second change, undone:\n%s", second)
	}
}

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

// A remember call's change, undone here, stays shown undone when the
// branch is reread from a file whose result holds no change (pi's).
func TestRereadKeepsALiveChangeUndone(t *testing.T) {
	m := New(uitest.UI(), nil)
	m.SetWidth(100)
	e := memory.Entry{ID: "m1", Content: "a note", By: memory.ByAgent}
	m.ToolStart("c1", "remember", `{"content":"a note"}`)
	m.ToolEnd(Result{CallID: "c1", Tool: "remember", Text: "Saved", Change: &memory.Change{Action: memory.ActionAdd, After: &e, Bytes: 6}})
	m.MarkUndone("c1")
	raw, _ := json.Marshal(entries.StoredMessage{Tool: "remember", Message: provider.Message{Role: provider.RoleTool,
		Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: "c1", ToolName: "remember", Text: "Saved"}}}})
	m.Reread([]sessions.Entry{sessions.NewEntry("r1", "", sessions.TypeToolResult, raw)})
	if v := m.View(10); !strings.Contains(v, "memory: ") || !strings.Contains(v, "· undone") {
		t.Errorf("after the reread:\n%s", v)
	}
	if _, _, ok := m.LastChange(); ok {
		t.Error("the undone change can be undone again")
	}
}

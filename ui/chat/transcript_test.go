package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// storedEntry is an entry as a session file gives it back.
func storedEntry(t *testing.T, id, parent, typ string, sm entries.StoredMessage) sessions.Entry {
	t.Helper()
	b, err := json.Marshal(sm)
	if err != nil {
		t.Fatal(err)
	}
	return sessions.NewEntry(id, parent, typ, b)
}

// toolSession: one answer calls bash twice; a later answer calls it
// again; the first call was denied.
func toolSession(t *testing.T) []sessions.Entry {
	call := func(id, cmd string) provider.Part {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		return provider.Part{Type: provider.PartToolCall, ToolCallID: id, ToolName: "bash", Arguments: args}
	}
	result := func(id, text string, isErr bool) entries.StoredMessage {
		return entries.StoredMessage{Tool: "bash", ToolMs: 3000, Message: provider.Message{Role: provider.RoleTool,
			Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: id, ToolName: "bash", Text: text, IsError: isErr}}}}
	}
	answer := func(parts ...provider.Part) entries.StoredMessage {
		return entries.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: parts}}
	}
	return []sessions.Entry{
		storedEntry(t, "u1", "", sessions.TypeUser, entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "count"}}}}),
		storedEntry(t, "a1", "u1", sessions.TypeAssistant, answer(call("c1", "rm -rf build"), call("c2", "for i in 1 2 3; do echo $i; done"))),
		storedEntry(t, "r1", "a1", sessions.TypeToolResult, result("c1", "The user denied this bash call.", true)),
		storedEntry(t, "r2", "r1", sessions.TypeToolResult, result("c2", "1\n2\n3\n", false)),
		storedEntry(t, "a2", "r2", sessions.TypeAssistant, answer(provider.Part{Type: provider.PartText, Text: "again"}, call("c3", "ls -la"))),
		storedEntry(t, "r3", "a2", sessions.TypeToolResult, result("c3", "total 0", false)),
	}
}

// TestStoredToolLinesShowTheirCommand: a reopened session's bash lines
// show the command the answer before them gave, denied or not, and
// expanding and collapsing a call keeps it.
func TestStoredToolLinesShowTheirCommand(t *testing.T) {
	m := testModel(t)
	m.SetSize(120, 40)
	m.Update(openedMsg{id: "s1", title: "t", entries: toolSession(t)})
	want := []string{"✗ bash rm -rf build · denied", "✓ bash for i in 1 2 3; do echo $i; done · 3.0s", "✓ bash ls -la · 3.0s"}
	check := func(when string) {
		t.Helper()
		view := m.View()
		for _, w := range want {
			if !strings.Contains(view, w) {
				t.Errorf("%s: the transcript lacks %q:\n%s", when, w, view)
			}
		}
	}
	check("reopened")
	m.tr.ToggleTool(m.transcriptHeight())
	check("expanded")
	m.tr.ToggleTool(m.transcriptHeight())
	check("collapsed")
	// A reread (another program's turn, /tree) builds the items anew.
	m.Update(refreshedMsg{id: "s1", entries: toolSession(t)})
	check("reread")
}

// TestLiveToolLineKeepsItsCommand: a live call's line shows its command
// while it runs, once it ends and across ctrl+o.
func TestLiveToolLineKeepsItsCommand(t *testing.T) {
	m := testModel(t)
	m.SetSize(100, 40)
	m.Update(toolStart())
	if !strings.Contains(m.View(), "bash make") {
		t.Fatalf("the running call lacks its command:\n%s", m.View())
	}
	m.Update(eventsMsg{events.ToolEnded{SessionID: "s1", ToolCallID: "b1", ToolName: "bash", Result: "ok"}})
	for range 2 {
		m.tr.ToggleTool(m.transcriptHeight())
		if !strings.Contains(m.View(), "✓ bash make") {
			t.Fatalf("the ended call lacks its command:\n%s", m.View())
		}
	}
}

// TestAttachedFilesShowAsACount: a message sent with @files reopens, and
// shows in /tree, as what was typed plus how many files went with it;
// continuing from it in /tree puts back what was typed.
func TestAttachedFilesShowAsACount(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("be brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sent, _ := filesearch.Attach(context.Background(), root, "see @AGENTS.md", filesearch.DefaultAttachLimits())
	user := storedEntry(t, "u1", "", sessions.TypeUser, entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: sent}}}})

	m := testModel(t)
	m.SetSize(100, 30)
	m.Update(openedMsg{id: "s1", title: "t", entries: []sessions.Entry{user}})
	view := m.View()
	if !strings.Contains(view, "see @AGENTS.md\n  (+ 1 file attached)") || strings.Contains(view, "<file") || strings.Contains(view, "be brief") {
		t.Errorf("the reopened message:\n%s", view)
	}
	if got := transcript.EntryText(user); got != "you: see @AGENTS.md (+ 1 file attached)" {
		t.Errorf("/tree shows %q", got)
	}
	m.branchTo(user)
	if got := m.in.input.Value(); got != "see @AGENTS.md" {
		t.Errorf("continuing from the message puts %q in the input", got)
	}
}

package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/sessiontree"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// BenchmarkTreeSearch20000: a session of 20,000 entries (questions,
// answers, bash calls and their results) read from its file, /tree
// opened on it and drawn, / pressed and every entry described for the
// search (in a command, off the UI goroutine: "ms-read"), then two
// keystrokes narrowing the rows, each with its frame, on the UI goroutine
// ("ms-key", each; target ≤ 16 ms). The op is all of it.
func BenchmarkTreeSearch20000(b *testing.B) {
	d, h := benchDeps(b)
	ctx := context.Background()
	p, _, err := h.Projects.Add(ctx, b.TempDir(), "p", true)
	if err != nil {
		b.Fatal(err)
	}
	s, err := d.Host.Sessions.Create(ctx, p.ID, "big")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 20000; i += 4 {
		args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./pkg%d/... 2>&1 | tail -3", i)})
		for _, e := range []struct {
			typ string
			sm  entries.StoredMessage
		}{
			{sessions.TypeUser, entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: fmt.Sprintf("question %d", i)}}}}},
			{sessions.TypeAssistant, entries.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartToolCall, ToolCallID: fmt.Sprint("c", i), ToolName: "bash", Arguments: args}}}}},
			{sessions.TypeToolResult, entries.StoredMessage{Tool: "bash", Message: provider.Message{Role: provider.RoleTool, Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: fmt.Sprint("c", i), ToolName: "bash", Text: "ok  \tpkg\t0.5s\n"}}}}},
			{sessions.TypeAssistant, entries.StoredMessage{Message: provider.Message{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartText, Text: fmt.Sprintf("answer %d with some words", i)}}}}},
		} {
			if _, err := s.Append(ctx, e.typ, e.sm); err != nil {
				b.Fatal(err)
			}
		}
	}
	id := s.ID()
	s.Close()
	key := func(r string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(r)} }
	var read, keys time.Duration
	b.ResetTimer()
	for b.Loop() {
		// Read anew, as a session opened for the first time is: no entry
		// decoded yet.
		s, err := d.Host.Sessions.Open(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		page := sessiontree.New(d.UI, false, s.Tree(), s.Leaf(), transcript.TreeText, nil, nil)
		_ = page.View(120, 40)
		_, cmd := page.Update(key("/"))
		start := time.Now()
		msg := cmd()
		read += time.Since(start)
		page.Update(msg)
		start = time.Now()
		for _, k := range []string{"1", "2"} {
			page.Update(key(k))
			_ = page.View(120, 40)
		}
		keys += time.Since(start)
		s.Close()
	}
	b.ReportMetric(float64(read.Microseconds())/1000/float64(b.N), "ms-read")
	b.ReportMetric(float64(keys.Microseconds())/2000/float64(b.N), "ms-key")
}

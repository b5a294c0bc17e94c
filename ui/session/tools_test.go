package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

// toolStart and toolOutput are a bash call's events in session s1.
func toolStart() eventsMsg {
	return eventsMsg{events.ToolStarted{SessionID: "s1", ToolCallID: "b1", ToolName: "bash", Args: []byte(`{"command":"make"}`)}}
}

func toolOutput(text string, skipped int64) eventsMsg {
	return eventsMsg{events.ToolOutput{SessionID: "s1", ToolCallID: "b1", ToolName: "bash", Text: text, Skipped: skipped}}
}

// TestRunningOutputIsBoundedAndShownAsText: a flood of output keeps the
// view's copy bounded, says what was not kept, and its controls (an
// escape sequence, a carriage return) are drawn as text in both the last
// lines and the expanded view.
func TestRunningOutputIsBoundedAndShownAsText(t *testing.T) {
	m := testModel(t)
	m.SetSize(100, 40)
	m.Update(toolStart())
	line := strings.Repeat("x", 99) + "\n"
	for range 2000 { // 200 KiB
		m.Update(toolOutput(line, 0))
	}
	m.Update(toolOutput("last \x1b[2Jline\r\n", 3<<20))
	it := m.calls["b1"]
	if it == nil || len(it.output) > liveKeep {
		t.Fatalf("the running call keeps %d bytes", len(it.output))
	}
	// The transcript, without the input's line (its cursor is drawn in
	// reverse video, an escape of pi-tui's own).
	transcript := func() string { v, _, _ := strings.Cut(m.View(), "\n› "); return v }
	view := transcript()
	if !strings.Contains(view, `│ last \x1b[2Jline\x0d`) || strings.ContainsAny(view, "\x1b\r") {
		t.Errorf("the last line is not shown as text:\n%q", view)
	}
	if !strings.Contains(view, "3.2 MiB before them not kept") {
		t.Errorf("the view does not say output was skipped:\n%s", view)
	}
	m.toggleTool()
	view = transcript()
	if !strings.Contains(view, "$ make") || !strings.Contains(view, `│ last \x1b[2Jline\x0d`) || strings.ContainsAny(view, "\x1b\r") {
		t.Errorf("the expanded call:\n%q", view)
	}
}

// TestSelectionMovesBetweenCalls: alt+↑ from no selection marks the
// latest call, again the one before, never past the first; alt+↓ past
// the latest ends the selection, and ctrl+o then acts on the latest.
func TestSelectionMovesBetweenCalls(t *testing.T) {
	m := testModel(t)
	m.SetSize(100, 40)
	var calls []*item
	for i := range 3 {
		it := &item{kind: kindTool, ready: true, tool: "read", path: fmt.Sprintf("f%d", i), status: "ok", result: fmt.Sprintf("content %d", i)}
		calls = append(calls, it)
		m.items = append(m.items, &item{kind: kindUser, ready: true, text: "q"}, it)
	}
	for _, want := range []int{2, 1, 0, 0} {
		m.selectTool(true)
		if m.sel != calls[want] || !calls[want].marked {
			t.Fatalf("alt+↑ selected %v, want call %d", m.sel, want)
		}
	}
	m.selectTool(false)
	m.selectTool(false)
	m.selectTool(false)
	if m.sel != nil || calls[2].marked {
		t.Fatal("alt+↓ past the latest call kept a selection")
	}
	m.toggleTool()
	view := m.View()
	if !strings.Contains(view, "│ content 2") || strings.Contains(view, "│ content 1") {
		t.Errorf("ctrl+o did not expand the latest call alone:\n%s", view)
	}
}

// BenchmarkBashOutputChunk: a chunk of a running command's output
// arriving while 2,000 messages are in the transcript, update and view.
// Target: the streamed token's, ≤ 4 ms/op.
func BenchmarkBashOutputChunk(b *testing.B) {
	m := longChat(b)
	m.Update(toolStart())
	chunk := toolOutput(strings.Repeat("ok  \tgithub.com/pi-tui/pi-tui/core/agent\t0.575s\n", 20), 0)
	_ = m.View()
	b.ReportAllocs()
	for b.Loop() {
		m.Update(chunk)
		_ = m.View()
	}
}

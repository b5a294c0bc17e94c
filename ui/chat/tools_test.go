package chat

import (
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

package chat

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/agent"
)

func toolEvent(typ, delta string, skipped int64) eventsMsg {
	return eventsMsg{agent.Event{Type: typ, SessionID: "s1", ToolCallID: "b1", ToolName: "bash",
		Args: []byte(`{"command":"make"}`), Delta: delta, Skipped: skipped}}
}

// BenchmarkBashOutputChunk: a chunk of a running command's output
// arriving while 2,000 messages are in the transcript, update and view.
// Target: the streamed token's, ≤ 4 ms/op.
func BenchmarkBashOutputChunk(b *testing.B) {
	m := longChat(b)
	m.Update(toolEvent(agent.EventToolStart, "", 0))
	chunk := toolEvent(agent.EventToolUpdate, strings.Repeat("ok  \tgithub.com/pi-tui/pi-tui/core/agent\t0.575s\n", 20), 0)
	_ = m.View()
	b.ReportAllocs()
	for b.Loop() {
		m.Update(chunk)
		_ = m.View()
	}
}

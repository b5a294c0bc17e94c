package rpc

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/pi-tui/pi-tui/core/events"
)

// Lines writes one JSON value per line, from any goroutine.
type Lines struct {
	mu  sync.Mutex
	w   io.Writer
	enc *json.Encoder
}

// NewLines returns a Lines writing to w.
func NewLines(w io.Writer) *Lines {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Lines{w: w, enc: enc}
}

// Write writes v as one line of JSON (HTML characters kept as they are).
func (j *Lines) Write(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.enc.Encode(v)
}

// Event writes e as the wire has it (events.Marshal, the one encoder of
// events). A kind that is not on the wire, or a tool call whose arguments
// are not JSON, writes nothing, as an encoder that fails writes nothing.
// The runtimes' events come through StreamEvents.
func (j *Lines) Event(e events.Event) {
	line, err := events.Marshal(e)
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.w.Write(append(line, '\n'))
}

// StreamEvents writes the runtimes' events (the broker's Agent topic) as
// the wire has them: every one, in the order published (a Verbatim
// subscription merges no deltas), from a goroutine of its own, so a client
// slow to read holds no runtime up. The func it returns ends the stream
// once what was published before the call is written; call it after the
// runtime manager's Close, whose retirements are the last lines.
func StreamEvents(b *events.Broker, out *Lines) (stop func()) {
	return b.Follow(events.Agent, out.Event, events.Verbatim)
}

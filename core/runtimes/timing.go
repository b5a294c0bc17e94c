package runtimes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
)

// The timing log: one JSON line per file tool call in the data dir, with
// the preflight apart from the tool's own time, so the cost of resolving
// instructions before a tool runs can be told from the tool's.

// TimingFile is the timing log in the data dir: one JSON line per tool call.
const TimingFile = "timing.log"

// logTiming appends one line per file tool call to timing.log; failures
// to log never fail the tool.
func (m *Manager) logTiming(e events.ToolEnded) {
	if m.timing == nil {
		f, err := os.OpenFile(filepath.Join(m.opts.Host.Places.DataDir, TimingFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		m.timing = f
	}
	line, _ := json.Marshal(struct {
		Time        string  `json:"time"`
		SessionID   string  `json:"sessionId"`
		ToolCallID  string  `json:"toolCallId"`
		Tool        string  `json:"tool"`
		PreflightMs float64 `json:"preflightMs"`
		Cache       string  `json:"cache"`
		Fallback    string  `json:"fallback"`
		ToolMs      float64 `json:"toolMs"`
		Denied      bool    `json:"denied,omitempty"`
	}{m.opts.Now().UTC().Format(time.RFC3339Nano), e.SessionID, e.ToolCallID, e.ToolName, e.Preflight.Ms, e.Preflight.Cache,
		e.Preflight.Fallback, e.ToolMs, e.Denied})
	m.timing.Write(append(line, '\n'))
}

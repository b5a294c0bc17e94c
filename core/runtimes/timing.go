package runtimes

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
)

// The timing log: one JSON line per file tool call in the data dir, with
// the preflight apart from the tool's own time, so the cost of resolving
// instructions before a tool runs can be told from the tool's.

// TimingFile is the timing log in the data dir: one JSON line per tool call.
const TimingFile = "timing.log"

// timingLog is the timing log of one manager: opened at its first line,
// closed with the manager.
type timingLog struct {
	dataDir string
	now     func() time.Time
	mu      sync.Mutex
	f       *os.File
}

// log appends one line for a file tool call that ended (e.Preflight set);
// failures to log never fail the tool.
func (t *timingLog) log(e events.ToolEnded) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		f, err := os.OpenFile(filepath.Join(t.dataDir, TimingFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		t.f = f
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
	}{t.now().UTC().Format(time.RFC3339Nano), e.SessionID, e.ToolCallID, e.ToolName, e.Preflight.Ms, e.Preflight.Cache,
		e.Preflight.Fallback, e.ToolMs, e.Denied})
	t.f.Write(append(line, '\n'))
}

// close closes the log's file, if it was opened.
func (t *timingLog) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}

package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// toolRemember runs a remember call against the host's writer, by the
// rules both engines share (toolpolicy.Remember).
func toolRemember(ctx context.Context, w toolpolicy.MemoryWriter, raw json.RawMessage) (ToolResult, error) {
	text, ch, err := toolpolicy.Remember(ctx, w, raw)
	return ToolResult{Text: text, Change: ch}, err
}

// recordChange stores the record of a remember change after its result
// (nothing when the call changed nothing).
func (a *Agent) recordChange(c ToolCall, resultID string, ch *memory.Change) error {
	if ch == nil {
		return nil
	}
	rec := entries.MemoryChangeRecord{Kind: entries.CustomMemoryChange, ToolCallID: c.ID, ToolResultID: resultID, Change: *ch}
	if _, err := a.cfg.Session.Append(context.Background(), sessions.TypeCustom, rec); err != nil {
		return fmt.Errorf("the memory was changed but the record of the change could not be saved, so the turn stopped: %w", err)
	}
	return nil
}

package agent

import (
	"encoding/json"
	"unicode/utf16"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Compaction settings come from pi's settings.json (compaction.*): with
// them the loop compacts when the context exceeds the window less
// ReserveTokens, and keeps about KeepRecentTokens of the newest entries
// as they are. Without them (nil) it compacts at CompactAt of the window
// and keeps the latest turn.

// estimateTokens sizes an entry as pi does: its characters (UTF-16
// units, as JavaScript counts them) divided by four, rounded up.
func estimateTokens(e sessions.Entry) int {
	chars := 0
	switch e.Type {
	case sessions.TypeUser, sessions.TypeAssistant, sessions.TypeToolResult:
		var sm entries.StoredMessage
		if json.Unmarshal(e.Payload(), &sm) != nil {
			return 0
		}
		for _, p := range sm.Message.Parts {
			switch p.Type {
			case provider.PartToolCall:
				chars += units(p.ToolName) + len(p.Arguments)
			default:
				chars += units(p.Text)
			}
		}
	case sessions.TypeCompaction:
		var c sessions.Compaction
		if json.Unmarshal(e.Payload(), &c) == nil {
			chars = units(c.Summary)
		}
	}
	return (chars + 3) / 4
}

func units(s string) int { return len(utf16.Encode([]rune(s))) }

// keepFrom picks the first entry a compaction keeps. It is a user
// message, so no turn is split, and never later than the latest one, so
// the turn in progress always stays. With KeepRecentTokens set it is the
// first user message at or after the point where the newest entries
// reach that many tokens (pi's rule); otherwise the latest user message.
// -1 means there is no user message.
func (a *Agent) keepFrom(es []sessions.Entry) int {
	last := -1
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Type == sessions.TypeUser {
			last = i
			break
		}
	}
	c := a.cfg.Compaction
	if c == nil || c.KeepRecentTokens <= 0 || last < 0 {
		return last
	}
	total := 0
	for i := len(es) - 1; i >= 0; i-- {
		if total += estimateTokens(es[i]); total < c.KeepRecentTokens {
			continue
		}
		for j := i; j < last; j++ {
			if es[j].Type == sessions.TypeUser {
				return j
			}
		}
		return last
	}
	return last
}

// overThreshold applies compaction.* to the context size; ok is false
// when no settings were given.
//
// A reserve that leaves no room (a local model whose whole window is
// 16,384 tokens or less, with pi's default reserve of 16,384) would compact
// before every call, the first one included: a reserve of the whole window
// or more is taken as a quarter of it. Nothing used, nothing to compact.
func (a *Agent) overThreshold(used, window int) (over, ok bool) {
	c := a.cfg.Compaction
	if c == nil {
		return false, false
	}
	reserve := c.ReserveTokens
	if reserve >= window {
		reserve = window / 4
	}
	return c.Enabled && used > 0 && used > window-reserve, true
}

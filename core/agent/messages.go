package agent

import (
	"encoding/json"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Messages turns the session's context entries into model messages: user,
// assistant and tool results as stored; a compaction as the user message
// pi sends for one (the same words, so a session continued by pi or by
// pi-tui shows the model the same conversation); custom and model-change
// entries are never sent.
// Consecutive tool results become one message, as both APIs expect.
func Messages(es []sessions.Entry) []provider.Message {
	var out []provider.Message
	for _, e := range es {
		switch e.Type {
		case sessions.TypeUser, sessions.TypeAssistant, sessions.TypeToolResult:
			var sm entries.StoredMessage
			if json.Unmarshal(e.Payload(), &sm) != nil {
				continue
			}
			m := sm.Message
			if e.Type == sessions.TypeAssistant {
				m.Role = provider.RoleAssistant
				m.Parts = completeParts(m.Parts, sm.Partial)
				if len(m.Parts) == 0 {
					continue
				}
			}
			if n := len(out); e.Type == sessions.TypeToolResult && n > 0 && out[n-1].Role == provider.RoleTool {
				out[n-1].Parts = append(out[n-1].Parts, m.Parts...)
				continue
			}
			out = append(out, m)
		case sessions.TypeCompaction:
			var c sessions.Compaction
			if json.Unmarshal(e.Payload(), &c) != nil {
				continue
			}
			out = append(out, provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText,
				Text: pisession.CompactionSummaryText(c.Summary)}}})
		}
	}
	return dropOrphanCalls(out)
}

// completeParts drops the tool calls of a partial (cut or aborted) answer:
// they never ran and have no results.
func completeParts(parts []provider.Part, partial bool) []provider.Part {
	if !partial {
		return parts
	}
	var out []provider.Part
	for _, p := range parts {
		if p.Type != provider.PartToolCall {
			out = append(out, p)
		}
	}
	return out
}

// dropOrphanCalls removes tool calls whose results are missing (a crash
// between the call and its result) and results without calls, so the
// request is valid for both APIs.
func dropOrphanCalls(msgs []provider.Message) []provider.Message {
	results := map[string]bool{}
	calls := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p.Type {
			case provider.PartToolResult:
				results[p.ToolCallID] = true
			case provider.PartToolCall:
				calls[p.ToolCallID] = true
			}
		}
	}
	out := msgs[:0]
	for _, m := range msgs {
		parts := m.Parts[:0:0]
		for _, p := range m.Parts {
			if (p.Type == provider.PartToolCall && !results[p.ToolCallID]) || (p.Type == provider.PartToolResult && !calls[p.ToolCallID]) {
				continue
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			continue
		}
		m.Parts = parts
		out = append(out, m)
	}
	return out
}

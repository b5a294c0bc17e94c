package pisession

import (
	"encoding/json"
)

// Stats are a session's totals, counted as pi 1.6's get_session_stats
// counts them, so both programs show the same figures for one file: every
// entry of every branch, in the file. Messages of every role count toward
// TotalMessages (pi 1.x's system messages included); tokens and cost add
// up assistant messages, tool results that carry usage, compactions and
// branch summaries that carry it (the summariser's), and usage entries
// (spent outside any message, such as cache warming), whatever their kind.
type Stats struct {
	UserMessages      int
	AssistantMessages int
	ToolCalls         int
	ToolResults       int
	TotalMessages     int
	Tokens            TokenTotals
	Cost              float64 // the usages' cost.total, summed
}

// TokenTotals sums token counts; Total is the sum of the other four.
type TokenTotals struct {
	Input      int64
	Output     int64
	CacheRead  int64
	CacheWrite int64
	Total      int64
}

func (t *TokenTotals) add(u *Usage) {
	if u == nil {
		return
	}
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Total = t.Input + t.Output + t.CacheRead + t.CacheWrite
}

// Stats counts the session's entries as pi does. A usage that cannot be
// read counts as none (pi would stop with an error).
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st Stats
	addUsage := func(raw []byte) {
		if raw == nil || isNull(raw) {
			return
		}
		var u Usage
		if json.Unmarshal(raw, &u) == nil {
			st.Tokens.add(&u)
			st.Cost += u.Cost.Total
		}
	}
	for i := range s.nodes {
		n := &s.nodes[i]
		switch n.typ {
		case TypeUsage, TypeCompaction, TypeBranchSummary:
			addUsage(findMember(n.raw, "usage"))
			continue
		case TypeMessage:
		default:
			continue
		}
		st.TotalMessages++
		msg := findMember(n.raw, "message")
		switch n.role {
		case roleUser:
			st.UserMessages++
		case roleToolResult:
			st.ToolResults++
			addUsage(findMember(msg, "usage"))
		case roleAssistant:
			st.AssistantMessages++
			st.ToolCalls += toolCallsIn(findMember(msg, "content"))
			addUsage(findMember(msg, "usage"))
		}
	}
	return st
}

// toolCallsIn counts the toolCall parts of a content array.
func toolCallsIn(content []byte) int {
	if len(content) == 0 || content[0] != '[' {
		return 0
	}
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return 0
	}
	n := 0
	for _, p := range parts {
		if p.Type == PartToolCall {
			n++
		}
	}
	return n
}

package pisession

import "strconv"

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

// Stats counts the session's entries as pi does. A usage that cannot be
// read counts as none (pi would stop with an error).
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st Stats
	addUsage := func(raw []byte) {
		if raw == nil || raw[0] != '{' {
			return
		}
		st.Tokens.Input += intMember(raw, "input")
		st.Tokens.Output += intMember(raw, "output")
		st.Tokens.CacheRead += intMember(raw, "cacheRead")
		st.Tokens.CacheWrite += intMember(raw, "cacheWrite")
		st.Tokens.Total = st.Tokens.Input + st.Tokens.Output + st.Tokens.CacheRead + st.Tokens.CacheWrite
		if c := findMember(raw, "cost"); c != nil {
			st.Cost += floatMember(c, "total")
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

// toolCallsIn counts the toolCall parts of a content array, scanning it
// (the line is known to be valid JSON) rather than decoding it.
func toolCallsIn(content []byte) int {
	if len(content) == 0 || content[0] != '[' {
		return 0
	}
	n := 0
	for i := skipWS(content, 1); i < len(content) && content[i] != ']'; {
		j, err := skipValue(content, i)
		if err != nil {
			return n
		}
		if rawStringEquals(findMember(content[i:j], "type"), PartToolCall) {
			n++
		}
		i = skipWS(content, j)
		if i < len(content) && content[i] == ',' {
			i = skipWS(content, i+1)
		}
	}
	return n
}

// intMember reads a number member of a usage object (0 when it is missing
// or not a number, where pi would count NaN).
func intMember(obj []byte, key string) int64 {
	return int64(floatMember(obj, key))
}

func floatMember(obj []byte, key string) float64 {
	v := findMember(obj, key)
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0
	}
	return f
}

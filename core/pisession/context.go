package pisession

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The texts pi wraps summaries in when it sends them to the model (its
// convertToLlm), so a session continued in either program gives the model
// the same words.
const (
	compactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSuffix = "\n</summary>"
	branchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSuffix     = "</summary>"
)

// ContextMessage is one message the model sees, with the entry it came from.
type ContextMessage struct {
	EntryID   string
	EntryType string
	// Role is user, assistant or toolResult: entries of other kinds
	// (summaries, custom messages, bash executions) reach the model as user
	// messages, as pi sends them.
	Role string
	// Raw is the message as JSON in pi's shape. For message entries of the
	// three model roles it is the stored message itself, unchanged.
	Raw json.RawMessage
}

// Message decodes Raw.
func (c ContextMessage) Message() (Message, error) {
	var m Message
	if err := json.Unmarshal(c.Raw, &m); err != nil {
		return m, fmt.Errorf("context message from entry %s: %w", c.EntryID, err)
	}
	return m, nil
}

// Context is what the model sees of the active branch.
type Context struct {
	Messages []ContextMessage
	Settings Settings
}

// Context builds the model's view of the active branch as pi does:
//
//   - Without a compaction on the branch: every entry that carries a
//     message, in order. message entries give their message;
//     custom_message entries and branch_summary entries (with a summary)
//     give a user message; every other type gives nothing.
//   - With one: only the last compaction C counts. First C's summary as a
//     user message ("The conversation history before this point was
//     compacted into the following summary:\n\n<summary>\n…\n</summary>"),
//     then the entries from C's firstKeptEntryId up to C, then the entries
//     after C. When firstKeptEntryId is not on the branch before C, nothing
//     before C is kept.
//
// Messages of roles the model does not take are turned into user messages
// the way pi's convertToLlm does (bashExecution, custom, branchSummary,
// compactionSummary); a role nobody knows is left out of the context (it
// stays in the file).
func (s *Session) Context() (Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.pathIdx(s.leaf)
	out := Context{Settings: s.settings(path)}
	comp := -1
	for k := len(path) - 1; k >= 0; k-- {
		if s.nodes[path[k]].typ == TypeCompaction {
			comp = k
			break
		}
	}
	add := func(i int32) error {
		m, ok, err := s.contextMessage(i)
		if err != nil {
			// One unreadable entry must not make the whole session
			// unusable; it is left out and said so.
			s.warn(fmt.Sprintf("entry %s (line %d) is left out of the model's context: %v", s.nodes[i].id, s.nodes[i].line, err))
			return nil
		}
		if ok {
			out.Messages = append(out.Messages, m)
		}
		return nil
	}
	if comp < 0 {
		for _, i := range path {
			if err := add(i); err != nil {
				return Context{}, err
			}
		}
		return out, nil
	}
	ci := path[comp]
	c, err := s.entry(ci).Compaction()
	if err != nil {
		s.warn(fmt.Sprintf("compaction %s (line %d) cannot be read (%v); its summary is left out", s.nodes[ci].id, s.nodes[ci].line, err))
	}
	if id, ok := s.firstKept[ci]; ok {
		c.FirstKeptEntryID = id
	}
	if err == nil {
		sum, err := userText(compactionPrefix+c.Summary+compactionSuffix, s.nodes[ci].ts())
		if err != nil {
			return Context{}, err
		}
		out.Messages = append(out.Messages, ContextMessage{EntryID: s.nodes[ci].id, EntryType: TypeCompaction, Role: RoleUser, Raw: sum})
	}
	start := comp // nothing kept unless firstKept is found before C
	for k := 0; k < comp; k++ {
		if s.nodes[path[k]].id == c.FirstKeptEntryID {
			start = k
			break
		}
	}
	for k := start; k < len(path); k++ {
		if k == comp {
			continue
		}
		// Like pi 0.73, an earlier compaction inside the kept range adds
		// nothing (pi 0.85 would repeat its summary).
		if s.nodes[path[k]].typ == TypeCompaction {
			continue
		}
		if err := add(path[k]); err != nil {
			return Context{}, err
		}
	}
	return out, nil
}

// contextMessage returns what entry i contributes, if anything.
func (s *state) contextMessage(i int32) (ContextMessage, bool, error) {
	n := &s.nodes[i]
	cm := ContextMessage{EntryID: n.id, EntryType: n.typ, Role: RoleUser}
	var err error
	switch n.typ {
	case TypeMessage:
		msg := findMember(n.raw, "message")
		if msg == nil {
			return cm, false, nil
		}
		switch n.role {
		case roleUser, roleAssistant, roleToolResult:
			cm.Role = [...]string{roleUser: RoleUser, roleAssistant: RoleAssistant, roleToolResult: RoleToolResult}[n.role]
			cm.Raw = msg
			if c := findMember(msg, "content"); c == nil || isNull(c) {
				// pi 0.85 reads a missing content as no content.
				cm.Raw, err = editObject(msg, []Member{{Key: "content", Value: json.RawMessage("[]")}})
			}
			return cm, err == nil, err
		}
		return s.otherRole(cm, n, msg)
	case TypeCustomMessage:
		var m CustomMessage
		if err := s.entry(i).Decode(&m); err != nil {
			return cm, false, err
		}
		cm.Raw, err = userContent(m.Content, n.ts())
		return cm, err == nil, err
	case TypeBranchSummary:
		var b BranchSummary
		if err := s.entry(i).Decode(&b); err != nil {
			return cm, false, err
		}
		if b.Summary == "" {
			return cm, false, nil
		}
		cm.Raw, err = userText(branchPrefix+b.Summary+branchSuffix, n.ts())
		return cm, err == nil, err
	}
	return cm, false, nil
}

// otherRole converts a message of a role the model does not take.
func (s *state) otherRole(cm ContextMessage, n *node, msg []byte) (ContextMessage, bool, error) {
	var m struct {
		Role               string          `json:"role"`
		Content            Content         `json:"content"`
		Timestamp          json.RawMessage `json:"timestamp"`
		Summary            string          `json:"summary"`
		Command            string          `json:"command"`
		Output             string          `json:"output"`
		ExitCode           *float64        `json:"exitCode"`
		Cancelled          bool            `json:"cancelled"`
		Truncated          bool            `json:"truncated"`
		FullOutputPath     string          `json:"fullOutputPath"`
		ExcludeFromContext bool            `json:"excludeFromContext"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return cm, false, fmt.Errorf("entry %s: %w", n.id, err)
	}
	ts := m.Timestamp
	if len(ts) == 0 {
		ts = []byte("0")
	}
	var err error
	switch m.Role {
	case RoleBashExecution:
		if m.ExcludeFromContext {
			return cm, false, nil
		}
		cm.Raw, err = userTextAt(bashText(m.Command, m.Output, m.ExitCode, m.Cancelled, m.Truncated, m.FullOutputPath), ts)
	case RoleCustom, "hookMessage": // hookMessage: version 2's name for custom
		cm.Raw, err = userContentAt(m.Content, ts)
	case RoleBranchSummary:
		cm.Raw, err = userTextAt(branchPrefix+m.Summary+branchSuffix, ts)
	case RoleCompactionSummary:
		cm.Raw, err = userTextAt(compactionPrefix+m.Summary+compactionSuffix, ts)
	default:
		return cm, false, nil
	}
	return cm, err == nil, err
}

// bashText is how pi shows a shell command run by the user to the model.
func bashText(command, output string, exitCode *float64, cancelled, truncated bool, fullOutputPath string) string {
	var b strings.Builder
	b.WriteString("Ran `" + command + "`\n")
	if output != "" {
		b.WriteString("```\n" + output + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	if cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if exitCode != nil && *exitCode != 0 {
		b.WriteString("\n\nCommand exited with code " + strconv.FormatFloat(*exitCode, 'f', -1, 64))
	}
	if truncated && fullOutputPath != "" {
		b.WriteString("\n\n[Output truncated. Full output: " + fullOutputPath + "]")
	}
	return b.String()
}

// entryMillis turns an entry's raw ISO timestamp into Unix milliseconds
// (JSON for the message's timestamp member; null when it is not a time, as
// JavaScript's NaN becomes null in JSON).
func entryMillis(tsRaw []byte) json.RawMessage {
	s, _ := stringValue(tsRaw)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(strconv.FormatInt(t.UnixMilli(), 10))
}

func userText(text string, tsRaw []byte) (json.RawMessage, error) {
	return userTextAt(text, entryMillis(tsRaw))
}

func userTextAt(text string, ts json.RawMessage) (json.RawMessage, error) {
	return userContentAt(PartsContent(Part{Type: PartText, Text: text}), ts)
}

func userContent(c Content, tsRaw []byte) (json.RawMessage, error) {
	return userContentAt(c, entryMillis(tsRaw))
}

// userContentAt builds a user message; string content becomes one text
// part, as pi sends custom messages.
func userContentAt(c Content, ts json.RawMessage) (json.RawMessage, error) {
	if c.IsText {
		c = PartsContent(Part{Type: PartText, Text: c.Text})
	}
	w := newObjWriter()
	w.str("role", RoleUser)
	w.val("content", c)
	w.raw("timestamp", ts)
	return w.done()
}

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

// CompactionSummaryText is the user message text pi sends in place of the
// entries a compaction summarised.
func CompactionSummaryText(summary string) string {
	return compactionPrefix + summary + compactionSuffix
}

// ContextMessage is one message the model sees, with the entry it came from.
type ContextMessage struct {
	EntryID   string
	EntryType string
	// Role is user, assistant or toolResult: entries of other kinds
	// (summaries, custom messages, bash executions) reach the model as user
	// messages, as pi sends them.
	Role string
	// Raw is the message as JSON in pi's shape. For message entries of the
	// three model roles it is the stored message itself, unchanged, unless
	// a context_edit replaced its content.
	Raw json.RawMessage
	// EditID names the context_edit entry whose replacement content Raw
	// carries ("" when none applies): the entry's own line says otherwise.
	EditID string
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

// Context builds the model's view of the active branch as pi 1.6 does:
//
//   - The entries taken: without a compaction on the branch, all of them.
//     With one, only the last compaction C counts: C itself, then the
//     entries from C's firstKeptEntryId up to C (system messages left
//     out), then the entries after C. When firstKeptEntryId is not on the
//     branch before C (a retain-none compaction names itself), nothing
//     before C is kept.
//   - What each gives: message entries their message; custom_message and
//     branch_summary entries (with a summary) a user message; C its
//     summary as a user message ("The conversation history before this
//     point was compacted into the following summary:\n\n<summary>\n…\n</summary>");
//     an earlier compaction among the kept entries, and every other type
//     (usage, custom, labels, context_edit itself, types nobody knows),
//     nothing.
//   - Edits: of the context_edit entries taken, the last one naming an
//     entry decides that entry's contribution: a null replacement leaves it
//     out, another replaces the content of a user, assistant, toolResult or
//     custom message (a string becomes one text part for assistant and
//     tool results). Edits on another branch, or summarised away by C,
//     change nothing.
//
// System-role messages (pi 1.x's prompt checkpoints, and C's
// systemMessage) are pi's own system prompt, not conversation: the engine
// sends its own, so they give no message here. Messages of roles the model
// does not take are turned into user messages the way pi's convertToLlm
// does (bashExecution, custom, branchSummary, compactionSummary); a role
// nobody knows is left out of the context (it stays in the file).
func (s *Session) Context() (Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.pathIdx(s.leaf)
	out := Context{Settings: s.settings(path)}
	taken := s.contextEntries(path)
	edits := s.contextEdits(taken)
	for k, i := range taken {
		if k > 0 && s.nodes[i].typ == TypeCompaction {
			// An earlier compaction among the kept entries: only the
			// last one gives its summary.
			continue
		}
		edit, edited := edits[s.nodes[i].id]
		if edited && edit.Omit {
			continue
		}
		m, ok, err := s.contextMessage(i)
		if err == nil && ok && edited {
			m, err = s.applyEdit(i, m, edit)
		}
		if err != nil {
			// One unreadable entry must not make the whole session
			// unusable; it is left out and said so.
			s.warn(fmt.Sprintf("entry %s (line %d) is left out of the model's context: %v", s.nodes[i].id, s.nodes[i].line, err))
			continue
		}
		if ok {
			out.Messages = append(out.Messages, m)
		}
	}
	return out, nil
}

// contextEntries picks the entries of path (indices, root first) that take
// part in the context: all of them, or, after a compaction, that
// compaction, the kept entries before it that are not system messages,
// and every entry after it.
func (s *state) contextEntries(path []int32) []int32 {
	comp := -1
	for k := len(path) - 1; k >= 0; k-- {
		if s.nodes[path[k]].typ == TypeCompaction {
			comp = k
			break
		}
	}
	if comp < 0 {
		return path
	}
	ci := path[comp]
	firstKept, ok := s.firstKept[ci]
	if !ok {
		firstKept, _ = stringValue(findMember(s.nodes[ci].raw, "firstKeptEntryId"))
	}
	out := make([]int32, 0, len(path)-comp)
	out = append(out, ci)
	keeping := false
	for _, i := range path[:comp] {
		n := &s.nodes[i]
		keeping = keeping || n.id == firstKept
		if keeping && (n.typ != TypeMessage || n.role != roleSystem) {
			out = append(out, i)
		}
	}
	return append(out, path[comp+1:]...)
}

// contextEdits reads the context_edit entries among taken: for each target
// id, the last edit in branch order. An edit that cannot be read is left
// out, with a warning, and the one before it (if any) stands.
func (s *state) contextEdits(taken []int32) map[string]edit {
	var edits map[string]edit
	for _, i := range taken {
		if s.nodes[i].typ != TypeContextEdit {
			continue
		}
		ce, err := s.entry(i).ContextEdit()
		if err != nil {
			s.warn(fmt.Sprintf("entry %s (line %d) changes nothing: %v", s.nodes[i].id, s.nodes[i].line, err))
			continue
		}
		if edits == nil {
			edits = map[string]edit{}
		}
		edits[ce.TargetID] = edit{ContextEdit: ce, id: s.nodes[i].id}
	}
	return edits
}

// edit is a context_edit in force, with the id of its entry.
type edit struct {
	ContextEdit
	id string
}

// applyEdit gives m (entry i's contribution) the edit's content, when m is
// a message whose content pi lets an edit replace.
func (s *state) applyEdit(i int32, m ContextMessage, ce edit) (ContextMessage, error) {
	n := &s.nodes[i]
	var role string
	switch {
	case n.typ == TypeCustomMessage:
		role = RoleCustom
	case n.typ != TypeMessage:
		return m, nil // a branch summary, a compaction: unchanged
	case n.role == roleUser || n.role == roleAssistant || n.role == roleToolResult:
		role = m.Role
	default:
		r, _ := stringValue(findMember(findMember(n.raw, "message"), "role"))
		if r != RoleCustom && r != "hookMessage" {
			return m, nil // a bash execution or a summary message: unchanged
		}
		role = RoleCustom
	}
	content, err := ce.replacedContent(role)
	if err != nil {
		return m, err
	}
	if role == RoleCustom {
		// Sent as a user message whose content is the edit's (a string
		// becoming one text part, as for any custom message).
		var c Content
		if err := json.Unmarshal(content, &c); err != nil {
			return m, err
		}
		ts := findMember(m.Raw, "timestamp")
		m.Raw, err = userContentAt(c, ts)
	} else {
		m.Raw, err = editObject(m.Raw, []Member{{Key: "content", Value: content}})
	}
	m.EditID = ce.id
	return m, err
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
	case TypeCompaction:
		c, err := s.entry(i).Compaction()
		if err != nil {
			return cm, false, fmt.Errorf("its summary cannot be read: %w", err)
		}
		cm.Raw, err = userText(CompactionSummaryText(c.Summary), n.ts())
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

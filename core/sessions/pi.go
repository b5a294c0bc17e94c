package sessions

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
)

// pi-tui's own records ride in pi's files as custom entries, which pi keeps
// in the tree, hides and never sends to a model.
const (
	// customPrefix starts the customType of every pi-tui record; the rest
	// is the record's kind (its "kind" member), e.g. "pi-tui.subdir_context".
	customPrefix = "pi-tui."
	// customTool carries a tool result's pi-tui extras (path, preflight,
	// tool time), which pi's toolResult message has no place for. It is
	// appended right after the result and names it.
	customTool = "pi-tui.tool"
	// customLeaf is pisession's leaf marker; it is not a record.
	customLeaf = "pi-tui.leaf"
	// kindThinking is the kind of pi-tui's thinking-level record, which is
	// pi's own thinking_level_change entry in the file.
	kindThinking = "thinking_level_change"
)

// toolExtras is the data of a customTool entry.
type toolExtras struct {
	ToolResultID string            `json:"toolResultId"`
	Path         string            `json:"path,omitempty"`
	Preflight    *events.Preflight `json:"preflight,omitempty"`
	ToolMs       float64           `json:"toolMs,omitempty"`
}

// Stop reasons: pi's words and pi-tui's.
var (
	stopToPi   = map[string]string{provider.StopEnd: "stop", provider.StopToolUse: "toolUse", provider.StopMaxTokens: "length", provider.StopAborted: "aborted", provider.StopError: "error"}
	stopFromPi = map[string]string{"stop": provider.StopEnd, "toolUse": provider.StopToolUse, "length": provider.StopMaxTokens, "aborted": provider.StopAborted, "error": provider.StopError}
)

// apiOf guesses pi's "api" for an assistant message when the model did not
// say (pi uses it to decide whether thinking signatures can be replayed).
func apiOf(prov string) string {
	switch prov {
	case "anthropic":
		return "anthropic-messages"
	case "google":
		return "google-generative-ai"
	}
	return "openai-completions"
}

// toPiMessage turns a stored pi-tui message into pi's message shape.
func toPiMessage(typ string, sm entries.StoredMessage, now time.Time) pisession.Message {
	m := pisession.Message{Timestamp: now.UnixMilli()}
	switch typ {
	case TypeUser:
		m.Role = pisession.RoleUser
		var parts []pisession.Part
		for _, p := range sm.Message.Parts {
			if p.Type == provider.PartText {
				parts = append(parts, pisession.Part{Type: pisession.PartText, Text: p.Text})
			}
		}
		m.Content = pisession.PartsContent(parts...)
	case TypeAssistant:
		m.Role = pisession.RoleAssistant
		parts := []pisession.Part{}
		for _, p := range sm.Message.Parts {
			switch p.Type {
			case provider.PartText:
				parts = append(parts, pisession.Part{Type: pisession.PartText, Text: p.Text})
			case provider.PartThinking:
				parts = append(parts, pisession.Part{Type: pisession.PartThinking, Thinking: p.Text, ThinkingSignature: p.Signature})
			case provider.PartToolCall:
				args := p.Arguments
				if len(args) == 0 || !json.Valid(args) {
					args = json.RawMessage("{}")
				}
				parts = append(parts, pisession.Part{Type: pisession.PartToolCall, ID: p.ToolCallID, Name: p.ToolName, Arguments: args})
			}
		}
		m.Content = pisession.PartsContent(parts...)
		m.Provider, m.Model, _ = strings.Cut(sm.Model, "/")
		m.API = sm.API
		if m.API == "" {
			m.API = apiOf(m.Provider)
		}
		u := pisession.Usage{}
		if sm.Usage != nil {
			u.Input, u.Output = int64(sm.Usage.InputTokens), int64(sm.Usage.OutputTokens)
			u.CacheRead, u.CacheWrite = int64(sm.Usage.CacheReadTokens), int64(sm.Usage.CacheWriteTokens)
			u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
		}
		m.Usage = &u
		m.StopReason = stopToPi[sm.StopReason]
		if m.StopReason == "" {
			m.StopReason = "stop"
			if sm.Partial {
				m.StopReason = "error"
			}
		}
		m.ErrorMessage = sm.Error
	case TypeToolResult:
		m.Role = pisession.RoleToolResult
		var text []pisession.Part
		for _, p := range sm.Message.Parts {
			if p.Type == provider.PartToolResult {
				m.ToolCallID, m.ToolName, m.IsError = p.ToolCallID, p.ToolName, p.IsError
				text = append(text, pisession.Part{Type: pisession.PartText, Text: p.Text})
			}
		}
		if m.ToolName == "" {
			m.ToolName = sm.Tool
		}
		m.Content = pisession.PartsContent(text...)
	}
	return m
}

// fromPiMessage turns a pi message entry into pi-tui's type and payload;
// ok is false for roles pi-tui does not show as such.
func fromPiMessage(m pisession.Message) (typ string, sm entries.StoredMessage, ok bool) {
	switch m.Role {
	case pisession.RoleUser:
		sm.Message = provider.Message{Role: provider.RoleUser, Parts: textParts(m.Content)}
		return TypeUser, sm, true
	case pisession.RoleAssistant:
		msg := provider.Message{Role: provider.RoleAssistant}
		for _, p := range m.Content.Parts {
			switch p.Type {
			case pisession.PartText:
				msg.Parts = append(msg.Parts, provider.Part{Type: provider.PartText, Text: p.Text})
			case pisession.PartThinking:
				msg.Parts = append(msg.Parts, provider.Part{Type: provider.PartThinking, Text: p.Thinking, Signature: p.ThinkingSignature})
			case pisession.PartToolCall:
				msg.Parts = append(msg.Parts, provider.Part{Type: provider.PartToolCall, ToolCallID: p.ID, ToolName: p.Name, Arguments: p.Arguments})
			}
		}
		if m.Content.IsText && m.Content.Text != "" {
			msg.Parts = append(msg.Parts, provider.Part{Type: provider.PartText, Text: m.Content.Text})
		}
		sm.Message = msg
		if m.Usage != nil {
			sm.Usage = &provider.Usage{InputTokens: int(m.Usage.Input), OutputTokens: int(m.Usage.Output),
				CacheReadTokens: int(m.Usage.CacheRead), CacheWriteTokens: int(m.Usage.CacheWrite)}
		}
		sm.StopReason = stopFromPi[m.StopReason]
		sm.Partial = m.StopReason == "aborted" || m.StopReason == "error"
		sm.Error = m.ErrorMessage
		if m.Provider != "" || m.Model != "" {
			sm.Model = m.Provider + "/" + m.Model
		}
		sm.API = m.API
		return TypeAssistant, sm, true
	case pisession.RoleToolResult:
		sm.Message = provider.Message{Role: provider.RoleTool, Parts: []provider.Part{{Type: provider.PartToolResult,
			ToolCallID: m.ToolCallID, ToolName: m.ToolName, Text: m.Content.PlainText("\n"), IsError: m.IsError}}}
		sm.Tool = m.ToolName
		return TypeToolResult, sm, true
	}
	return "", sm, false
}

// textParts keeps the text of user content; an image becomes a note, as
// pi-tui sends no images.
func textParts(c pisession.Content) []provider.Part {
	if c.IsText {
		return []provider.Part{{Type: provider.PartText, Text: c.Text}}
	}
	var out []provider.Part
	for _, p := range c.Parts {
		switch p.Type {
		case pisession.PartText:
			out = append(out, provider.Part{Type: provider.PartText, Text: p.Text})
		case "image":
			out = append(out, provider.Part{Type: provider.PartText, Text: "[image]"})
		}
	}
	return out
}

// userEntry is a model-visible message that pi-tui has no type for
// (custom_message, branch_summary, bashExecution…): it reaches the model
// as the user message pi would send.
func userEntry(id string, m pisession.Message) Entry {
	raw, _ := json.Marshal(entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: textParts(m.Content)}})
	return Entry{ID: id, Type: TypeUser, src: &source{raw: raw}}
}

// record is the common shape of pi-tui's custom records.
type record struct {
	Kind          string `json:"kind"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// view gives a pi entry pi-tui's type; ok is false for entries pi-tui does
// not show (names, labels, extension state, unknown types), which stay in
// the file untouched. It reads only what the line scan already found (the
// type, a message's role) and a custom entry's customType; the payload is
// translated on first use (see translate).
func view(pe pisession.Entry) (Entry, bool) {
	e := Entry{ID: pe.ID, ParentID: pe.ParentID}
	switch pe.Type {
	case pisession.TypeMessage:
		switch pe.Role() {
		case pisession.RoleUser:
			e.Type = TypeUser
		case pisession.RoleAssistant:
			e.Type = TypeAssistant
		case pisession.RoleToolResult:
			e.Type = TypeToolResult
		default:
			return e, false
		}
	case pisession.TypeCompaction:
		e.Type = TypeCompaction
	case pisession.TypeModelChange:
		e.Type = TypeModelChange
	case pisession.TypeThinkingLevelChange:
		e.Type = TypeCustom
	case pisession.TypeCustom:
		ct, _ := pe.StringMember("customType")
		if !strings.HasPrefix(ct, customPrefix) || ct == customLeaf || ct == customTool || pe.Member("data") == nil {
			return e, false
		}
		e.Type = TypeCustom
	default:
		return e, false
	}
	e.src = &source{fromFile: true, pe: pe}
	return e, true
}

// translate turns a pi entry into pi-tui's payload, with a tool result's
// extras (a pi-tui.tool custom entry) added when there are any.
func translate(pe pisession.Entry, extras *pisession.Entry) (json.RawMessage, error) {
	switch pe.Type {
	case pisession.TypeMessage:
		m, err := pe.Message()
		if err != nil {
			return nil, err
		}
		_, sm, ok := fromPiMessage(m)
		if !ok {
			return nil, errors.New("not a message pi-tui shows")
		}
		if extras != nil {
			if x, ok := extrasOf(*extras); ok {
				sm.Path, sm.Preflight, sm.ToolMs = x.Path, x.Preflight, x.ToolMs
			}
		}
		return json.Marshal(sm)
	case pisession.TypeCompaction:
		c, err := pe.Compaction()
		if err != nil {
			return nil, err
		}
		return json.Marshal(Compaction{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: int(c.TokensBefore)})
	case pisession.TypeModelChange:
		mc, err := pe.ModelChange()
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]string{"model": mc.Provider + "/" + mc.ModelID})
	case pisession.TypeThinkingLevelChange:
		tl, err := pe.ThinkingLevelChange()
		if err != nil {
			return nil, err
		}
		return json.Marshal(record{Kind: kindThinking, ThinkingLevel: tl.ThinkingLevel})
	case pisession.TypeCustom:
		c, err := pe.Custom()
		if err != nil {
			return nil, err
		}
		return c.Data, nil
	}
	return nil, errors.New("not an entry pi-tui shows")
}

// extrasOf decodes a pi-tui.tool custom entry.
func extrasOf(pe pisession.Entry) (toolExtras, bool) {
	var x toolExtras
	c, err := pe.Custom()
	if err != nil || c.CustomType != customTool || json.Unmarshal(c.Data, &x) != nil {
		return x, false
	}
	return x, true
}

// extrasTarget returns the id of the tool result a pi-tui.tool entry
// describes, scanning without decoding.
func extrasTarget(pe pisession.Entry) (string, bool) {
	if pe.Type != pisession.TypeCustom {
		return "", false
	}
	if ct, _ := pe.StringMember("customType"); ct != customTool {
		return "", false
	}
	return pisession.StringMemberOf(pe.Member("data"), "toolResultId")
}

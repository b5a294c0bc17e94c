package pisession

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the session file format version pi 0.73 and 0.85 write.
const Version = 3

// Entry types pi writes. Any other type is kept as it is and takes part in
// the tree like any entry, but contributes nothing to the model's context.
const (
	TypeSession             = "session" // the header line, never an entry
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
	// pi 1.x: an append-only edit of an earlier entry's contribution to
	// the model's context (see ContextEdit).
	TypeContextEdit = "context_edit"
	// pi 1.x: tokens spent outside an assistant message (cache warming,
	// say); counted in the session's totals, never sent to the model.
	TypeUsage = "usage"
)

// Message roles. pi writes user, assistant and toolResult; the others come
// from extensions and older versions and are kept, shown where possible and
// never dropped.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
	// RoleSystem is pi 1.x's system message: the prompt sections and tool
	// declarations in force (a full set, then patches). It is pi's own
	// prompt, so it never reaches the model as a conversation message.
	RoleSystem = "system"
)

// Header is the first line of a session file.
type Header struct {
	Version       int    // 1 when the line has none (pi's oldest files)
	ID            string // the session id (a UUIDv7 in files pi writes)
	Timestamp     string // ISO time the session was created
	Cwd           string // absolute working directory
	ParentSession string // path of the session this one was forked from, or ""
	// Raw is the header line as stored (without the newline); read-only.
	Raw json.RawMessage
}

// Entry is one line of a session after the header. Only the members the
// tree needs are decoded; the typed views (Message, Compaction, …) decode
// the rest on demand from Raw, which is the line exactly as stored, so
// fields pi-tui does not know travel with it untouched.
type Entry struct {
	Type     string
	ID       string
	ParentID string // "" when parentId is null (a root)
	// Raw is the entry's line without its newline. It is shared with the
	// session: treat it as read-only.
	Raw json.RawMessage

	tsOff, tsLen int32 // where the timestamp value is in Raw, when known
	role         uint8 // message entries: the role, as read (role* codes)
}

// Role returns a message entry's role as read when the line was scanned
// (RoleUser, RoleAssistant or RoleToolResult), "" for any other role and
// for other entries. It costs no decoding, so a long branch can be sorted
// into user, assistant and tool lines before any message is decoded.
func (e Entry) Role() string {
	switch e.role {
	case roleUser:
		return RoleUser
	case roleAssistant:
		return RoleAssistant
	case roleToolResult:
		return RoleToolResult
	}
	return ""
}

// Timestamp returns the entry's ISO timestamp as stored ("" if none). It is
// read from Raw on demand, so listing a long branch costs no strings.
func (e Entry) Timestamp() string {
	var raw []byte
	if e.tsLen > 0 && int(e.tsOff+e.tsLen) <= len(e.Raw) {
		raw = e.Raw[e.tsOff : e.tsOff+e.tsLen]
	} else {
		raw = findMember(e.Raw, "timestamp")
	}
	s, _ := stringValue(raw)
	return s
}

// Member returns the raw JSON value of the entry's top-level member name
// (the first one, when a hostile line repeats it), or nil. It scans without
// decoding or allocating, so a caller can tell entries apart (a custom
// entry's customType, say) before paying for a decode.
func (e Entry) Member(name string) json.RawMessage { return findMember(e.Raw, name) }

// StringMember returns a top-level string member's value; ok is false when
// the member is missing or not a string.
func (e Entry) StringMember(name string) (string, bool) { return StringMemberOf(e.Raw, name) }

// StringMemberOf is StringMember for any JSON object, such as a member's
// value (a custom entry's data).
func StringMemberOf(obj json.RawMessage, name string) (string, bool) {
	return stringValue(findMember(obj, name))
}

// Decode unmarshals the whole entry line into v.
func (e Entry) Decode(v any) error {
	if err := json.Unmarshal(e.Raw, v); err != nil {
		return fmt.Errorf("decode %s entry %s: %w", e.Type, e.ID, err)
	}
	return nil
}

func (e Entry) want(typ string) error {
	if e.Type != typ {
		return fmt.Errorf("entry %s is a %s entry, not %s", e.ID, e.Type, typ)
	}
	return nil
}

// Message decodes a message entry's message.
func (e Entry) Message() (Message, error) {
	if err := e.want(TypeMessage); err != nil {
		return Message{}, err
	}
	var v struct {
		Message Message `json:"message"`
	}
	err := e.Decode(&v)
	return v.Message, err
}

// ModelChange is a model_change entry's payload.
type ModelChange struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// ModelChange decodes a model_change entry.
func (e Entry) ModelChange() (ModelChange, error) {
	var v ModelChange
	if err := e.want(TypeModelChange); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// ThinkingLevelChange is a thinking_level_change entry's payload.
type ThinkingLevelChange struct {
	ThinkingLevel string `json:"thinkingLevel"`
}

// ThinkingLevelChange decodes a thinking_level_change entry.
func (e Entry) ThinkingLevelChange() (ThinkingLevelChange, error) {
	var v ThinkingLevelChange
	if err := e.want(TypeThinkingLevelChange); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// Compaction is a compaction entry's payload: Summary stands for the
// branch's entries before FirstKeptEntryID.
type Compaction struct {
	Summary          string          `json:"summary"`
	FirstKeptEntryID string          `json:"firstKeptEntryId"`
	TokensBefore     int64           `json:"tokensBefore"`
	Details          json.RawMessage `json:"details,omitempty"` // pi: {readFiles, modifiedFiles}
	Usage            *Usage          `json:"usage,omitempty"`   // pi 0.85
	FromHook         *bool           `json:"fromHook,omitempty"`
	// SystemMessage is pi 1.x's prompt and tool checkpoint at the
	// boundary (a system-role message), kept as stored.
	SystemMessage json.RawMessage `json:"systemMessage,omitempty"`
}

// Compaction decodes a compaction entry.
func (e Entry) Compaction() (Compaction, error) {
	var v Compaction
	if err := e.want(TypeCompaction); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// BranchSummary is a branch_summary entry's payload. The entry's parentId
// is where the conversation continues. FromID differs by version: pi 0.73
// writes the branch point (equal to the parentId), pi 0.85 the tip of the
// branch that was left (or "root"). Read both; see LeftBranchTip.
type BranchSummary struct {
	FromID   string          `json:"fromId"`
	Summary  string          `json:"summary"`
	Details  json.RawMessage `json:"details,omitempty"`
	Usage    *Usage          `json:"usage,omitempty"`
	FromHook *bool           `json:"fromHook,omitempty"`
}

// BranchSummary decodes a branch_summary entry.
func (e Entry) BranchSummary() (BranchSummary, error) {
	var v BranchSummary
	if err := e.want(TypeBranchSummary); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// LeftBranchTip returns the id of the tip of the branch the summary
// summarises, when the file says so: pi 0.85 writes it as fromId; pi 0.73's
// fromId is the branch point (the entry's own parent) and names no tip, so
// ok is false then, as it is for "root".
func (b BranchSummary) LeftBranchTip(e Entry) (id string, ok bool) {
	if b.FromID == "" || b.FromID == "root" || b.FromID == e.ParentID {
		return "", false
	}
	return b.FromID, true
}

// Custom is a custom entry's payload: extension state, never sent to the
// model.
type Custom struct {
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// Custom decodes a custom entry.
func (e Entry) Custom() (Custom, error) {
	var v Custom
	if err := e.want(TypeCustom); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// CustomMessage is a custom_message entry's payload: extension text that is
// sent to the model as a user message.
type CustomMessage struct {
	CustomType string          `json:"customType"`
	Content    Content         `json:"content"`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// CustomMessage decodes a custom_message entry.
func (e Entry) CustomMessage() (CustomMessage, error) {
	var v CustomMessage
	if err := e.want(TypeCustomMessage); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// Label is a label entry's payload; an empty Label clears TargetID's label.
type Label struct {
	TargetID string `json:"targetId"`
	Label    string `json:"label,omitempty"`
}

// Label decodes a label entry.
func (e Entry) Label() (Label, error) {
	var v Label
	if err := e.want(TypeLabel); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// SessionInfo is a session_info entry's payload; the latest one in the
// file names the session, and an empty name clears it.
type SessionInfo struct {
	Name string `json:"name"`
}

// SessionInfo decodes a session_info entry.
func (e Entry) SessionInfo() (SessionInfo, error) {
	var v SessionInfo
	if err := e.want(TypeSessionInfo); err != nil {
		return v, err
	}
	return v, e.Decode(&v)
}

// Member is one member of a JSON object that a typed view does not model,
// kept in file order so that re-encoding loses nothing.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Usage is token use and cost as pi records it on assistant messages (and,
// in pi 0.85, on compactions and branch summaries).
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	Reasoning   int64 `json:"reasoning,omitempty"` // pi 0.85
	TotalTokens int64 `json:"totalTokens"`
	Cost        Cost  `json:"cost"`
}

// Cost is money spent, in the provider's currency unit (dollars).
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Content is a message's content: a plain string (user messages and custom
// messages may use one) or a list of parts.
type Content struct {
	Text   string // the string, when IsText
	Parts  []Part
	IsText bool
}

// TextContent returns content that is a plain string.
func TextContent(s string) Content { return Content{Text: s, IsText: true} }

// PartsContent returns content made of parts.
func PartsContent(p ...Part) Content { return Content{Parts: p} }

// PlainText joins the text of the content: the string itself, or the text
// parts joined by sep.
func (c Content) PlainText(sep string) string {
	if c.IsText {
		return c.Text
	}
	var b bytes.Buffer
	n := 0
	for _, p := range c.Parts {
		if p.Type != PartText {
			continue
		}
		if n > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p.Text)
		n++
	}
	return b.String()
}

// MarshalJSON writes a string or an array (never null).
func (c Content) MarshalJSON() ([]byte, error) {
	if c.IsText {
		return jsonMarshal(c.Text)
	}
	if c.Parts == nil {
		return []byte("[]"), nil
	}
	return jsonMarshal(c.Parts)
}

// UnmarshalJSON reads a string, an array of parts, or null (as no parts,
// which is how pi 0.85 reads a message whose content is missing).
func (c *Content) UnmarshalJSON(b []byte) error {
	*c = Content{}
	b = bytes.TrimSpace(b)
	switch {
	case isNull(b):
		return nil
	case len(b) > 0 && b[0] == '"':
		c.IsText = true
		return json.Unmarshal(b, &c.Text)
	default:
		return json.Unmarshal(b, &c.Parts)
	}
}

// Part types.
const (
	PartText     = "text"
	PartThinking = "thinking"
	PartImage    = "image"
	PartToolCall = "toolCall"
)

// Part is one piece of message content. Which fields mean something
// depends on Type; members of any other kind are kept in Extra.
type Part struct {
	Type string
	// text
	Text string
	// thinking
	Thinking          string
	ThinkingSignature string
	Redacted          bool
	// image: base64 data
	Data     string
	MimeType string
	// toolCall
	ID        string
	Name      string
	Arguments json.RawMessage // a JSON object
	Extra     []Member
}

// MarshalJSON writes the members of the part's type, then Extra.
func (p Part) MarshalJSON() ([]byte, error) {
	w := newObjWriter()
	w.str("type", p.Type)
	switch p.Type {
	case PartText:
		w.str("text", p.Text)
	case PartThinking:
		w.str("thinking", p.Thinking)
		if p.ThinkingSignature != "" {
			w.str("thinkingSignature", p.ThinkingSignature)
		}
		if p.Redacted {
			w.val("redacted", true)
		}
	case PartImage:
		w.str("data", p.Data)
		w.str("mimeType", p.MimeType)
	case PartToolCall:
		w.str("id", p.ID)
		w.str("name", p.Name)
		args := p.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		w.raw("arguments", args)
	default:
		w.strIf("text", p.Text)
	}
	w.extra(p.Extra)
	return w.done()
}

// UnmarshalJSON reads a part of any type, keeping members it does not model.
func (p *Part) UnmarshalJSON(b []byte) error {
	*p = Part{}
	var err error
	e := eachMember(b, func(m *member) bool {
		k := m.keyString()
		switch k {
		case "type":
			err = json.Unmarshal(m.val, &p.Type)
		case "text":
			err = json.Unmarshal(m.val, &p.Text)
		case "thinking":
			err = json.Unmarshal(m.val, &p.Thinking)
		case "thinkingSignature":
			err = json.Unmarshal(m.val, &p.ThinkingSignature)
		case "redacted":
			err = json.Unmarshal(m.val, &p.Redacted)
		case "data":
			err = json.Unmarshal(m.val, &p.Data)
		case "mimeType":
			err = json.Unmarshal(m.val, &p.MimeType)
		case "id":
			err = json.Unmarshal(m.val, &p.ID)
		case "name":
			err = json.Unmarshal(m.val, &p.Name)
		case "arguments":
			p.Arguments = append(json.RawMessage(nil), m.val...)
		default:
			p.Extra = append(p.Extra, Member{Key: k, Value: append(json.RawMessage(nil), m.val...)})
		}
		if err != nil {
			err = fmt.Errorf("part member %q: %w", k, err)
			return false
		}
		return true
	})
	if e != nil {
		return fmt.Errorf("message part: %w", e)
	}
	return err
}

// Message is a message entry's message, in pi's shape. Members a role does
// not model (pi 0.85's rawStopReason, an extension's fields, every member of
// a role pi-tui does not know) are kept in Extra in file order, so a
// decoded message re-encodes without loss.
type Message struct {
	Role      string
	Content   Content
	Timestamp int64 // Unix milliseconds
	// assistant
	API          string
	Provider     string
	Model        string
	Usage        *Usage
	StopReason   string // stop, length, toolUse, error, aborted
	ErrorMessage string
	ResponseID   string
	// toolResult
	ToolCallID string
	ToolName   string
	Details    json.RawMessage
	IsError    bool
	Extra      []Member
}

// ExtraMember returns the raw value of an unmodelled member, or nil.
func (m Message) ExtraMember(key string) json.RawMessage {
	for _, x := range m.Extra {
		if x.Key == key {
			return x.Value
		}
	}
	return nil
}

// MarshalJSON writes the message in the member order pi uses for its role.
func (m Message) MarshalJSON() ([]byte, error) {
	w := newObjWriter()
	w.str("role", m.Role)
	switch m.Role {
	case RoleUser:
		w.val("content", m.Content)
		w.val("timestamp", m.Timestamp)
	case RoleAssistant:
		w.val("content", m.Content)
		w.str("api", m.API)
		w.str("provider", m.Provider)
		w.str("model", m.Model)
		u := m.Usage
		if u == nil {
			u = &Usage{}
		}
		w.val("usage", u)
		w.str("stopReason", m.StopReason)
		w.strIf("errorMessage", m.ErrorMessage)
		w.val("timestamp", m.Timestamp)
		w.strIf("responseId", m.ResponseID)
	case RoleToolResult:
		w.str("toolCallId", m.ToolCallID)
		w.str("toolName", m.ToolName)
		w.val("content", m.Content)
		if len(m.Details) > 0 {
			w.raw("details", m.Details)
		}
		w.val("isError", m.IsError)
		w.val("timestamp", m.Timestamp)
	default:
		if m.Content.IsText || m.Content.Parts != nil {
			w.val("content", m.Content)
		}
		if len(m.Details) > 0 {
			w.raw("details", m.Details)
		}
		if m.Timestamp != 0 {
			w.val("timestamp", m.Timestamp)
		}
	}
	w.extra(m.Extra)
	return w.done()
}

// UnmarshalJSON reads a message of any role.
func (m *Message) UnmarshalJSON(b []byte) error {
	*m = Message{}
	var err error
	e := eachMember(b, func(mb *member) bool {
		k := mb.keyString()
		switch k {
		case "role":
			err = json.Unmarshal(mb.val, &m.Role)
		case "content":
			err = json.Unmarshal(mb.val, &m.Content)
		case "timestamp":
			var f float64 // JavaScript numbers; pi writes integers
			if err = json.Unmarshal(mb.val, &f); err == nil {
				m.Timestamp = int64(f)
			}
		case "api":
			err = json.Unmarshal(mb.val, &m.API)
		case "provider":
			err = json.Unmarshal(mb.val, &m.Provider)
		case "model":
			err = json.Unmarshal(mb.val, &m.Model)
		case "usage":
			if !isNull(mb.val) {
				m.Usage = new(Usage)
				err = json.Unmarshal(mb.val, m.Usage)
			}
		case "stopReason":
			err = json.Unmarshal(mb.val, &m.StopReason)
		case "errorMessage":
			err = json.Unmarshal(mb.val, &m.ErrorMessage)
		case "responseId":
			err = json.Unmarshal(mb.val, &m.ResponseID)
		case "toolCallId":
			err = json.Unmarshal(mb.val, &m.ToolCallID)
		case "toolName":
			err = json.Unmarshal(mb.val, &m.ToolName)
		case "details":
			m.Details = append(json.RawMessage(nil), mb.val...)
		case "isError":
			err = json.Unmarshal(mb.val, &m.IsError)
		default:
			m.Extra = append(m.Extra, Member{Key: k, Value: append(json.RawMessage(nil), mb.val...)})
		}
		if err != nil {
			err = fmt.Errorf("message member %q: %w", k, err)
			return false
		}
		return true
	})
	if e != nil {
		return fmt.Errorf("message: %w", e)
	}
	return err
}

// objWriter builds a JSON object member by member.
type objWriter struct {
	b   bytes.Buffer
	n   int
	err error
}

func newObjWriter() *objWriter {
	w := &objWriter{}
	w.b.WriteByte('{')
	return w
}

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b.WriteByte(',')
	}
	w.n++
	kb, _ := jsonMarshal(k)
	w.b.Write(kb)
	w.b.WriteByte(':')
}

func (w *objWriter) raw(k string, v json.RawMessage) {
	if w.err == nil && !json.Valid(v) {
		w.err = fmt.Errorf("member %q is not valid JSON", k)
		return
	}
	w.key(k)
	w.b.Write(bytes.TrimSpace(v))
}

func (w *objWriter) val(k string, v any) {
	vb, err := jsonMarshal(v)
	if err != nil {
		if w.err == nil {
			w.err = fmt.Errorf("member %q: %w", k, err)
		}
		return
	}
	w.key(k)
	w.b.Write(vb)
}

func (w *objWriter) str(k, v string) { w.val(k, v) }

func (w *objWriter) strIf(k, v string) {
	if v != "" {
		w.val(k, v)
	}
}

func (w *objWriter) extra(ms []Member) {
	for _, m := range ms {
		w.raw(m.Key, m.Value)
	}
}

func (w *objWriter) done() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	w.b.WriteByte('}')
	return w.b.Bytes(), nil
}

// jsonMarshal is json.Marshal without HTML escaping, as JSON.stringify
// writes: "<" stays "<" in the file.
func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// errBaseMember is returned when an entry's payload tries to set a member
// that the session itself owns.
var errBaseMember = errors.New("the payload sets type, id, parentId or timestamp, which the session sets itself")

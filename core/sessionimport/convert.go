package sessionimport

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// What a source's line holds, once read: the neutral shape every source is
// turned into before it is written as pi's entries.
type blockKind uint8

const (
	bText blockKind = iota
	bThinking
	bImage
	bCall   // a tool call
	bResult // a tool result
)

type block struct {
	kind    blockKind
	text    string // text, thinking, a result's output
	data    string // image: base64
	mime    string
	callID  string
	name    string          // the source's tool name
	args    json.RawMessage // a call's arguments, in the source's shape
	isError bool
}

// model is who answered: pi's provider, api and model id.
type model struct {
	provider, api, id string
}

// converted is one source session as pi entries, held in memory while it is
// converted and written; one exists per import worker.
type converted struct {
	key     string // sessionKey(source, source id)
	created time.Time
	cwd     string
	entries []pisession.Draft
	taken   map[string]bool
	seq     uint64
	tip     string              // the last entry written
	lastAt  time.Time           // the last time seen, for entries the source left undated
	calls   map[string]string   // source call id → pi tool name ("" unmapped)
	open    map[string][]string // entry id → its mapped calls still unanswered
}

func newConverted(key string) *converted {
	return &converted{key: key, taken: map[string]bool{}, calls: map[string]string{}, open: map[string][]string{}}
}

// continueFrom starts an append to a file already written: new entries go
// under tip, and ids already taken in that file are avoided.
func (c *converted) continueFrom(tip string, taken map[string]bool, seq uint64) {
	c.tip = tip
	c.taken = taken
	c.seq = seq
}

// newID returns an entry id (8 hex characters, as pi makes them) derived
// from the session and a counter, so an import is reproducible.
func (c *converted) newID() string {
	for {
		c.seq++
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], c.seq)
		h := sha256.Sum256(append([]byte(c.key), n[:]...))
		id := hex.EncodeToString(h[:4])
		if !c.taken[id] {
			c.taken[id] = true
			return id
		}
	}
}

func (c *converted) when(at time.Time) time.Time {
	if at.IsZero() {
		if !c.lastAt.IsZero() {
			return c.lastAt
		}
		return c.created
	}
	c.lastAt = at
	if c.created.IsZero() || at.Before(c.created) && len(c.entries) == 0 {
		c.created = at
	}
	return at
}

// add appends an entry under parent ("" for the tip) and returns its id.
func (c *converted) add(typ, parent string, at time.Time, fields any) string {
	if parent == "" {
		parent = c.tip
	}
	id := c.newID()
	c.entries = append(c.entries, pisession.Draft{Type: typ, ID: id, ParentID: parent, Timestamp: c.when(at), Fields: fields})
	c.tip = id
	return id
}

type messageFields struct {
	Message pisession.Message `json:"message"`
}

func (c *converted) message(parent string, at time.Time, m pisession.Message) string {
	at = c.when(at)
	m.Timestamp = at.UnixMilli()
	return c.add(pisession.TypeMessage, parent, at, messageFields{Message: m})
}

// closeOpen answers, under parent, the mapped tool calls parent left
// unanswered (the source recorded no result: the agent was stopped): a
// model reading the history needs a result after every call.
func (c *converted) closeOpen(parent string, at time.Time) string {
	if parent == "" {
		parent = c.tip
	}
	open := c.open[parent]
	delete(c.open, parent)
	for _, id := range open {
		name := c.calls[id]
		parent = c.message(parent, at, pisession.Message{Role: pisession.RoleToolResult, ToolCallID: id, ToolName: name,
			Content: pisession.PartsContent(pisession.Part{Type: pisession.PartText, Text: "(no result was recorded)"}), IsError: true})
	}
	return parent
}

// user writes a user turn: its tool results first (pi's toolResult
// messages for mapped calls, text for the others), then its text and
// images as one user message. It returns the last entry written, parent
// when nothing was.
func (c *converted) user(parent string, at time.Time, blocks []block) string {
	if parent == "" {
		parent = c.tip
	}
	var parts []pisession.Part
	var texts []string
	for _, b := range blocks {
		switch b.kind {
		case bResult:
			name, mapped := c.calls[b.callID]
			if mapped && name != "" && contains(c.open[parent], b.callID) {
				rest := without(c.open[parent], b.callID)
				delete(c.open, parent)
				parent = c.message(parent, at, pisession.Message{Role: pisession.RoleToolResult, ToolCallID: b.callID, ToolName: name,
					Content: pisession.PartsContent(pisession.Part{Type: pisession.PartText, Text: b.text}), IsError: b.isError})
				if len(rest) > 0 {
					c.open[parent] = rest
				}
				continue
			}
			label := "Result of " + orUnknown(b.name)
			if b.isError {
				label = "Error from " + orUnknown(b.name)
			}
			texts = append(texts, label+":\n"+b.text)
		case bText:
			if strings.TrimSpace(b.text) != "" {
				parts = append(parts, pisession.Part{Type: pisession.PartText, Text: b.text})
			}
		case bImage:
			parts = append(parts, pisession.Part{Type: pisession.PartImage, Data: b.data, MimeType: b.mime})
		}
	}
	if len(texts) > 0 {
		parts = append([]pisession.Part{{Type: pisession.PartText, Text: strings.Join(texts, "\n\n")}}, parts...)
	}
	if len(parts) == 0 {
		return parent
	}
	parent = c.closeOpen(parent, at)
	return c.message(parent, at, pisession.Message{Role: pisession.RoleUser, Content: pisession.PartsContent(parts...)})
}

// assistant writes an assistant turn: text, thinking, and tool calls as
// pi's toolCall parts where pi has the tool, as text where it has not.
func (c *converted) assistant(parent string, at time.Time, who model, usage *pisession.Usage, blocks []block, src Source) string {
	if parent == "" {
		parent = c.tip
	}
	var parts []pisession.Part
	var mapped []string
	for _, b := range blocks {
		switch b.kind {
		case bText:
			if strings.TrimSpace(b.text) != "" {
				parts = append(parts, pisession.Part{Type: pisession.PartText, Text: b.text})
			}
		case bThinking:
			if strings.TrimSpace(b.text) != "" {
				parts = append(parts, pisession.Part{Type: pisession.PartThinking, Thinking: b.text})
			}
		case bCall:
			name, args, ok := mapTool(src, b.name, b.args)
			if ok && b.callID != "" {
				c.calls[b.callID] = name
				mapped = append(mapped, b.callID)
				parts = append(parts, pisession.Part{Type: pisession.PartToolCall, ID: b.callID, Name: name, Arguments: args})
				continue
			}
			c.calls[b.callID] = ""
			parts = append(parts, pisession.Part{Type: pisession.PartText, Text: callText(b.name, b.args)})
		}
	}
	if len(parts) == 0 {
		return parent
	}
	parent = c.closeOpen(parent, at)
	if usage == nil {
		usage = &pisession.Usage{}
	}
	stop := "stop"
	if len(mapped) > 0 {
		stop = "toolUse"
	}
	id := c.message(parent, at, pisession.Message{Role: pisession.RoleAssistant, Content: pisession.PartsContent(parts...),
		API: who.api, Provider: who.provider, Model: who.id, Usage: usage, StopReason: stop})
	if len(mapped) > 0 {
		c.open[id] = mapped
	}
	return id
}

// addRecord ends the entries with the import record: the tip it continues
// from, and the id counter past the record's own id.
func (c *converted) addRecord(rec record) {
	rec.Tip = c.tip
	id := c.newID()
	rec.Seq = c.seq
	c.entries = append(c.entries, pisession.Draft{Type: pisession.TypeCustom, ID: id, ParentID: c.tip, Timestamp: c.when(time.Time{}),
		Fields: pisession.Custom{CustomType: RecordType, Data: mustJSON(rec)}})
}

// finish answers the calls the tip left open and names the session.
func (c *converted) finish(title string, named bool) {
	c.closeOpen("", c.lastAt)
	if title != "" && !named {
		c.add(pisession.TypeSessionInfo, "", c.lastAt, pisession.SessionInfo{Name: title})
	}
}

// callText is a tool call pi has no tool for, as the text a reader (and a
// model continuing the session) sees.
func callText(name string, args json.RawMessage) string {
	if len(args) == 0 {
		return "[" + orUnknown(name) + "]"
	}
	return "[" + orUnknown(name) + "] " + string(args)
}

func orUnknown(name string) string {
	if name == "" {
		return "tool"
	}
	return name
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// sessionKey is the part of a pi session id that the source and the
// source's id decide: 74 bits of a hash, in a UUIDv7's random bits.
func sessionKey(src Source, id string) string {
	h := sha256.Sum256([]byte("pi-tui import\x00" + string(src) + "\x00" + id))
	var u [10]byte
	copy(u[:], h[:10])
	u[0] = 0x70 | u[0]&0x0f // version 7
	u[2] = 0x80 | u[2]&0x3f // variant 10
	return hex.EncodeToString(u[0:2]) + "-" + hex.EncodeToString(u[2:4]) + "-" + hex.EncodeToString(u[4:10])
}

// sessionID is the pi session id for a key: a UUIDv7 whose time is when the
// source session began (so pi's sorting by id holds) and whose random bits
// are the key, so a later import finds the file by its name.
func sessionID(key string, created time.Time) string {
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(created.UnixMilli()))
	h := hex.EncodeToString(ts[2:8])
	return h[0:8] + "-" + h[8:12] + "-" + key
}

// keyOf returns the key of a pi session file's name, "" when the name is
// not <timestamp>_<uuid>.jsonl.
func keyOf(name string) string {
	name, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return ""
	}
	i := strings.LastIndexByte(name, '_')
	if i < 0 || len(name)-i-1 != 36 {
		return ""
	}
	return name[i+1+14:]
}

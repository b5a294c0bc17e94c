package sessionimport

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// Claude Code keeps a session per file, ~/.claude/projects/<slug>/<id>.jsonl,
// one JSON object a line. The lines that carry the conversation are "user"
// and "assistant" ({uuid, parentUuid, isSidechain, isMeta, cwd, timestamp,
// message:{role, content, model, usage}}); "summary" and "custom-title"
// name the session; "system", "file-history-snapshot", "queue-operation"
// and the like are the program's own bookkeeping. One reply of the model is
// written as several assistant lines (one per content block) sharing
// message.id; they become one pi message. A sub-agent's lines
// (isSidechain, or files named agent-*.jsonl and those in subagents/) are
// its own conversation and stay out.

// claudeFiles lists the session files under root/projects.
func claudeFiles(root string) ([]found, error) {
	dirs, err := os.ReadDir(filepath.Join(root, "projects"))
	if err != nil {
		return nil, err
	}
	var out []found
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(root, "projects", d.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			name := f.Name()
			if f.IsDir() || !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") {
				continue
			}
			if fd, ok := statFound(Claude, strings.TrimSuffix(name, ".jsonl"), filepath.Join(dir, name)); ok {
				out = append(out, fd)
			}
		}
	}
	return out, nil
}

type claudeLine struct {
	Type        string         `json:"type"`
	UUID        string         `json:"uuid"`
	ParentUUID  *string        `json:"parentUuid"`
	Logical     string         `json:"logicalParentUuid"`
	IsSidechain bool           `json:"isSidechain"`
	IsMeta      bool           `json:"isMeta"`
	IsCompact   bool           `json:"isCompactSummary"`
	Cwd         string         `json:"cwd"`
	Timestamp   string         `json:"timestamp"`
	Summary     string         `json:"summary"`
	CustomTitle string         `json:"customTitle"`
	Message     *claudeMessage `json:"message"` // decoded with the line: one pass
}

type claudeMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input      int64 `json:"input_tokens"`
		Output     int64 `json:"output_tokens"`
		CacheWrite int64 `json:"cache_creation_input_tokens"`
		CacheRead  int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// claudeKnown are the line types that carry nothing to import.
var claudeKnown = map[string]bool{"system": true, "file-history-snapshot": true, "queue-operation": true,
	"progress": true, "attachment": true, "ai-title": true, "tag": true, "agent-name": true, "pr-link": true, "last-prompt": true}

// claudeReader converts one Claude Code file, line by line.
type claudeReader struct {
	c       *converted
	byUUID  map[string]string // source uuid → the pi entry it continues
	names   map[string]string // tool_use id → tool name, for results as text
	unknown map[string]bool
	title   string
	// the reply being gathered: lines sharing one message.id
	pendID     string
	pendParent string
	pendAt     time.Time
	pendModel  string
	pendUsage  *pisession.Usage
	pendBlocks []block
	pendUUIDs  []string
}

func (r *claudeReader) parent(p *string) string {
	if p != nil {
		if id, ok := r.byUUID[*p]; ok {
			return id
		}
	}
	return r.c.tip
}

func (r *claudeReader) flush() {
	if r.pendID == "" && len(r.pendBlocks) == 0 {
		return
	}
	id := r.c.assistant(r.pendParent, r.pendAt, model{provider: "anthropic", api: "anthropic-messages", id: r.pendModel}, r.pendUsage, r.pendBlocks, Claude)
	for _, u := range r.pendUUIDs {
		r.byUUID[u] = id
	}
	r.pendID, r.pendBlocks, r.pendUUIDs, r.pendUsage = "", nil, nil, nil
}

func (r *claudeReader) line(n int, text []byte, problem func(int, string)) {
	var l claudeLine
	if err := json.Unmarshal(text, &l); err != nil {
		problem(n, lineError(err))
		return
	}
	if l.Cwd != "" && r.c.cwd == "" {
		r.c.cwd = l.Cwd
	}
	switch l.Type {
	case "summary":
		if r.title == "" || !strings.HasPrefix(r.title, "\x00") {
			r.title = l.Summary
		}
		return
	case "custom-title":
		if l.CustomTitle != "" {
			r.title = "\x00" + l.CustomTitle // a name the user chose wins over a summary
		}
		return
	case "user", "assistant":
	default:
		if !claudeKnown[l.Type] && !r.unknown[l.Type] {
			r.unknown[l.Type] = true
			problem(n, "unknown entry type "+quote(l.Type)+"; skipped (and any later lines of that type)")
		}
		if l.UUID != "" {
			r.byUUID[l.UUID] = r.parentOrLogical(l)
		}
		return
	}
	if l.IsSidechain {
		return
	}
	at, _ := time.Parse(time.RFC3339Nano, l.Timestamp)
	if l.Message == nil {
		problem(n, "a "+l.Type+" line without a message; skipped")
		r.byUUID[l.UUID] = r.parent(l.ParentUUID)
		return
	}
	m := *l.Message
	if l.Type == "assistant" {
		if m.Model == "<synthetic>" {
			r.flush()
			r.byUUID[l.UUID] = r.parent(l.ParentUUID)
			return
		}
		if m.ID == "" || m.ID != r.pendID {
			r.flush()
			r.pendID, r.pendParent, r.pendAt, r.pendModel = m.ID, r.parent(l.ParentUUID), at, m.Model
			if r.pendID == "" {
				r.pendID = "\x00" + l.UUID
			}
		}
		r.pendUUIDs = append(r.pendUUIDs, l.UUID)
		if m.Usage != nil {
			r.pendUsage = &pisession.Usage{Input: m.Usage.Input, Output: m.Usage.Output, CacheRead: m.Usage.CacheRead, CacheWrite: m.Usage.CacheWrite,
				TotalTokens: m.Usage.Input + m.Usage.Output + m.Usage.CacheRead + m.Usage.CacheWrite}
		}
		for _, b := range claudeBlocks(m.Content) {
			switch b.Type {
			case "text":
				r.pendBlocks = append(r.pendBlocks, block{kind: bText, text: b.Text})
			case "thinking":
				r.pendBlocks = append(r.pendBlocks, block{kind: bThinking, text: b.Thinking})
			case "tool_use":
				r.names[b.ID] = b.Name
				r.pendBlocks = append(r.pendBlocks, block{kind: bCall, callID: b.ID, name: b.Name, args: b.Input})
			}
		}
		return
	}
	r.flush()
	parent := r.parent(l.ParentUUID)
	if l.IsMeta || l.IsCompact {
		r.byUUID[l.UUID] = parent
		return
	}
	var blocks []block
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		blocks = append(blocks, block{kind: bText, text: claudeUserText(s)})
	} else {
		for _, b := range claudeBlocks(m.Content) {
			switch b.Type {
			case "text":
				blocks = append(blocks, block{kind: bText, text: claudeUserText(b.Text)})
			case "image":
				if b.Source != nil && b.Source.Type == "base64" {
					blocks = append(blocks, block{kind: bImage, data: b.Source.Data, mime: b.Source.MediaType})
				}
			case "tool_result":
				blocks = append(blocks, block{kind: bResult, callID: b.ToolUseID, name: r.names[b.ToolUseID], text: claudeResultText(b.Content), isError: b.IsError})
			}
		}
	}
	r.byUUID[l.UUID] = r.c.user(parent, at, blocks)
}

func (r *claudeReader) parentOrLogical(l claudeLine) string {
	if l.ParentUUID == nil && l.Logical != "" {
		return r.parent(&l.Logical)
	}
	return r.parent(l.ParentUUID)
}

func claudeBlocks(raw json.RawMessage) []claudeBlock {
	var bs []claudeBlock
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}

// claudeResultText reads a tool result's content: a string, or blocks
// whose text is joined (an image in a result is named, not kept).
func claudeResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	for _, b := range claudeBlocks(raw) {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

// claudeInjected starts the text Claude Code puts in a user's turn itself:
// a slash command's echo and output, its caveat, a hook's words.
var claudeInjected = []string{"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
	"<local-command-stderr>", "<local-command-caveat>", "Caveat: The messages below were generated", "<user-prompt-submit-hook>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "[Request interrupted by user"}

// claudeUserText is what the user typed: "" for text Claude Code wrote
// itself, and with its <system-reminder> blocks (the instruction files and
// notes it adds) removed.
func claudeUserText(s string) string {
	s = stripTagged(s, "system-reminder")
	t := strings.TrimSpace(s)
	for _, p := range claudeInjected {
		if strings.HasPrefix(t, p) {
			return ""
		}
	}
	return s
}

// stripTagged removes every <tag>…</tag> block from s.
func stripTagged(s, tag string) string {
	open, closing := "<"+tag+">", "</"+tag+">"
	for {
		i := strings.Index(s, open)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], closing)
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+len(closing):]
	}
}

// readClaude converts the lines of a Claude Code file from the offset and
// line number rec records (0 and 1 the first time).
func readClaude(ctx context.Context, fd found, rec record, c *converted, max int, problem func(int, string)) (record, error) {
	r := &claudeReader{c: c, byUUID: map[string]string{}, names: map[string]string{}, unknown: map[string]bool{}}
	end, next, err := eachLine(ctx, fd.path, rec.Offset, max1(rec.Line), max, problem, func(n int, text []byte) error {
		r.line(n, text, problem)
		return nil
	})
	r.flush()
	title := strings.TrimPrefix(r.title, "\x00")
	if title == "" {
		title = rec.Title
	}
	c.finish(title, rec.Title == title)
	rec.Title = title
	rec.Offset, rec.Line = end, next
	return rec, err
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// lineError says why a line could not be read: not JSON at all, or JSON
// of a shape the agent does not write.
func lineError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "a member has the wrong kind of value (" + te.Field + "); skipped"
	}
	return "not a JSON object (" + shortErr(err) + "); skipped"
}

// shortErr is a JSON decoding error without Go's type names.
func shortErr(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "json: cannot unmarshal"); i >= 0 {
		return "a member has the wrong kind of value"
	}
	return strings.TrimPrefix(msg, "json: ")
}

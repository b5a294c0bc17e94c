package sessionexport

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/pisession"
)

// Format is an export format.
type Format string

// The formats.
const (
	HTML     Format = "html"
	Markdown Format = "md"
	JSONL    Format = "jsonl"
)

// ParseFormat reads a --format value.
func ParseFormat(s string) (Format, bool) {
	switch Format(strings.ToLower(s)) {
	case HTML, "htm":
		return HTML, true
	case Markdown, "markdown":
		return Markdown, true
	case JSONL, "json":
		return JSONL, true
	}
	return "", false
}

// FileDiff is one file change a tool call made, as the Review screen shows
// it: a unified diff.
type FileDiff struct {
	Path    string
	Status  string // A, M or D
	Added   int
	Removed int
	Diff    string
}

// Options say what to export.
type Options struct {
	Format      Format
	AllBranches bool
	// Title names the session ("" for its first message).
	Title string
	// Diffs are the file changes by the id of the tool call that made them.
	Diffs map[string][]FileDiff
	// Now dates the export (time.Now when nil).
	Now func() time.Time
}

// item is one thing a reader sees, in order.
type item struct {
	kind    string // user, assistant, note, branch
	at      time.Time
	texts   []string // user and assistant text, a note's text
	think   []string
	calls   []call
	model   string
	entryID string
}

type call struct {
	id, name, summary, args string
	result                  string
	isError, answered       bool
	diffs                   []FileDiff
}

// branch is one path to render: its heading ("" for the branch shown) and
// its items.
type branch struct {
	heading string
	items   []item
}

// build turns the session's branch (or every branch) into items.
func build(s *pisession.Session, o Options) []branch {
	path := s.Path()
	out := []branch{{items: items(path, o)}}
	if !o.AllBranches {
		return out
	}
	shown := map[string]bool{}
	for _, e := range path {
		shown[e.ID] = true
	}
	n := 1
	for _, leaf := range leaves(s) {
		if shown[leaf] {
			continue
		}
		p, err := s.PathTo(leaf)
		if err != nil {
			continue
		}
		k := 0
		for k < len(p) && shown[p[k].ID] {
			k++
		}
		for _, e := range p {
			shown[e.ID] = true
		}
		n++
		from := "the start"
		if k > 0 {
			from = "entry " + p[k-1].ID
		}
		out = append(out, branch{heading: fmt.Sprintf("Branch %d (from %s)", n, from), items: items(p[k:], o)})
	}
	return out
}

// leaves are the entries nothing continues, in file order.
func leaves(s *pisession.Session) []string {
	all := s.Entries()
	hasChild := map[string]bool{}
	for _, e := range all {
		if e.ParentID != "" {
			hasChild[e.ParentID] = true
		}
	}
	var out []string
	for _, e := range all {
		if !hasChild[e.ID] {
			out = append(out, e.ID)
		}
	}
	return out
}

func items(path []pisession.Entry, o Options) []item {
	var out []item
	open := map[string]*call{} // tool call id → the call awaiting its result
	for _, e := range path {
		at, _ := pisession.ParseTimestamp(e.Timestamp())
		switch e.Type {
		case pisession.TypeMessage:
			m, err := e.Message()
			if err != nil {
				out = append(out, item{kind: "note", at: at, texts: []string{"(an entry that cannot be read: " + err.Error() + ")"}})
				continue
			}
			switch m.Role {
			case pisession.RoleUser:
				out = append(out, item{kind: "user", at: at, texts: texts(m.Content), entryID: e.ID})
			case pisession.RoleAssistant:
				it := item{kind: "assistant", at: at, model: m.Model, entryID: e.ID}
				for _, p := range m.Content.Parts {
					switch p.Type {
					case pisession.PartText:
						it.texts = append(it.texts, p.Text)
					case pisession.PartThinking:
						if p.Thinking != "" {
							it.think = append(it.think, p.Thinking)
						}
					case pisession.PartToolCall:
						it.calls = append(it.calls, call{id: p.ID, name: p.Name, summary: summary(p.Name, p.Arguments), args: pretty(p.Arguments), diffs: o.Diffs[p.ID]})
					}
				}
				if m.ErrorMessage != "" {
					it.texts = append(it.texts, "Error: "+m.ErrorMessage)
				}
				out = append(out, it)
				last := &out[len(out)-1]
				for i := range last.calls {
					open[last.calls[i].id] = &last.calls[i]
				}
			case pisession.RoleToolResult:
				text := strings.Join(texts(m.Content), "\n")
				if c, ok := open[m.ToolCallID]; ok {
					c.result, c.isError, c.answered = text, m.IsError, true
					delete(open, m.ToolCallID)
					continue
				}
				out = append(out, item{kind: "note", at: at, texts: []string{"Result of " + m.ToolName + ":\n" + text}})
			case pisession.RoleSystem:
			default:
				if t := texts(m.Content); len(t) > 0 {
					out = append(out, item{kind: "note", at: at, texts: t})
				}
			}
		case pisession.TypeCompaction:
			if c, err := e.Compaction(); err == nil {
				out = append(out, item{kind: "note", at: at, texts: []string{"Earlier messages were compacted into this summary:\n\n" + c.Summary}})
			}
		case pisession.TypeBranchSummary:
			if b, err := e.BranchSummary(); err == nil {
				out = append(out, item{kind: "note", at: at, texts: []string{"Summary of a branch left behind:\n\n" + b.Summary}})
			}
		case pisession.TypeCustomMessage:
			if c, err := e.CustomMessage(); err == nil && c.Display {
				out = append(out, item{kind: "note", at: at, texts: texts(c.Content)})
			}
		}
	}
	return out
}

// texts are the content's text parts; an image is named.
func texts(c pisession.Content) []string {
	if c.IsText {
		return []string{c.Text}
	}
	var out []string
	for _, p := range c.Parts {
		switch p.Type {
		case pisession.PartText:
			out = append(out, p.Text)
		case pisession.PartImage:
			out = append(out, "["+p.MimeType+" image]")
		}
	}
	return out
}

// summary is the one line a folded call shows: its command or path.
func summary(name string, args json.RawMessage) string {
	var a struct {
		Path    string `json:"path"`
		Command string `json:"command"`
		Pattern string `json:"pattern"`
	}
	_ = json.Unmarshal(args, &a)
	s := a.Command
	if s == "" {
		s = a.Path
	}
	if s == "" {
		s = a.Pattern
	}
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func pretty(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

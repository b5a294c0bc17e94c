package sessionimport

import (
	"context"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Codex writes a session per file, ~/.codex/sessions/YYYY/MM/DD/
// rollout-<time>-<uuid>.jsonl, in two line shapes over its versions:
//   - since late 2025 every line is {timestamp, type, payload}: type is
//     session_meta (id, cwd, …), turn_context (cwd, model, …),
//     response_item (the conversation: a message, reasoning, a function or
//     custom tool call and its output, a local shell call), event_msg (the
//     same again as the program showed it) or compacted;
//   - before, the first line is the meta itself ({id, timestamp,
//     instructions, git}) and the others are bare response items, with
//     {"record_type":"state"} lines between.
// Codex puts the project's instructions (AGENTS.md) and an environment
// note in the first user messages; they stay out.

var codexUUID = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// codexFiles lists the rollout files under root/sessions, at any depth.
func codexFiles(root string) ([]found, error) {
	var out []found
	dir := filepath.Join(root, "sessions")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() || !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		stem := strings.TrimSuffix(name, ".jsonl")
		id := codexUUID.FindString(stem)
		if id == "" {
			id = stem
		}
		if fd, ok := statFound(Codex, id, path); ok {
			out = append(out, fd)
		}
		return nil
	})
	return out, err
}

type codexLine struct {
	Timestamp  string          `json:"timestamp"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	RecordType string          `json:"record_type"`
	ID         string          `json:"id"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"` // reasoning: []codexText; turn_context: a word
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	// session_meta, turn_context
	Cwd   string `json:"cwd"`
	Model string `json:"model"`
	// event_msg
	Message string `json:"message"`
}

type codexText struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

var codexKnown = map[string]bool{"event_msg": true, "compacted": true, "ghost_snapshot": true, "web_search_call": true}

// codexInjected starts the text Codex puts in a user's turn itself.
var codexInjected = []string{"<user_instructions>", "<environment_context>", "# AGENTS.md instructions", "<INSTRUCTIONS>",
	"<permissions instructions>", "<turn_aborted>", "<user_shell_command>"}

type codexReader struct {
	c       *converted
	model   string
	names   map[string]string
	unknown map[string]bool
	asst    []block
	asstAt  time.Time
	user    []block
	userAt  time.Time
}

func (r *codexReader) flushAssistant() {
	if len(r.asst) > 0 {
		r.c.assistant("", r.asstAt, model{provider: "openai", api: "openai-responses", id: r.model}, nil, r.asst, Codex)
		r.asst = nil
	}
}

func (r *codexReader) flushUser() {
	if len(r.user) > 0 {
		r.c.user("", r.userAt, r.user)
		r.user = nil
	}
}

func (r *codexReader) toAssistant(at time.Time, b block) {
	r.flushUser()
	if len(r.asst) == 0 {
		r.asstAt = at
	}
	r.asst = append(r.asst, b)
}

func (r *codexReader) toUser(at time.Time, b block) {
	r.flushAssistant()
	if len(r.user) == 0 {
		r.userAt = at
	}
	r.user = append(r.user, b)
}

func (r *codexReader) line(n int, text []byte, problem func(int, string)) {
	var l codexLine
	if err := json.Unmarshal(text, &l); err != nil {
		problem(n, lineError(err))
		return
	}
	at, _ := time.Parse(time.RFC3339Nano, l.Timestamp)
	if len(l.Payload) == 0 {
		// The older shape: the meta line, state lines, bare items.
		switch {
		case l.RecordType != "":
		case l.Type == "" && l.ID != "":
			r.c.when(at)
		default:
			r.item(n, at, text, problem)
		}
		return
	}
	switch l.Type {
	case "session_meta", "turn_context":
		var it codexItem
		if json.Unmarshal(l.Payload, &it) != nil {
			problem(n, "a "+l.Type+" line without a readable payload; skipped")
			return
		}
		if it.Cwd != "" && r.c.cwd == "" {
			r.c.cwd = it.Cwd
		}
		if it.Model != "" {
			r.model = it.Model
		}
		r.c.when(at)
	case "response_item":
		r.item(n, at, l.Payload, problem)
	default:
		if !codexKnown[l.Type] && !r.unknown[l.Type] {
			r.unknown[l.Type] = true
			problem(n, "unknown entry type "+quote(l.Type)+"; skipped (and any later lines of that type)")
		}
	}
}

func (r *codexReader) item(n int, at time.Time, raw []byte, problem func(int, string)) {
	var it codexItem
	if err := json.Unmarshal(raw, &it); err != nil {
		problem(n, "a response item that cannot be read ("+shortErr(err)+"); skipped")
		return
	}
	switch it.Type {
	case "message":
		var parts []codexText
		var s string
		if json.Unmarshal(it.Content, &s) == nil {
			parts = []codexText{{Type: "input_text", Text: s}}
		} else {
			_ = json.Unmarshal(it.Content, &parts)
		}
		switch it.Role {
		case "user":
			for _, p := range parts {
				switch p.Type {
				case "input_text", "text":
					if cwd := codexEnvCwd(p.Text); cwd != "" && r.c.cwd == "" {
						r.c.cwd = cwd
					}
					if codexIsInjected(p.Text) {
						continue
					}
					r.toUser(at, block{kind: bText, text: p.Text})
				case "input_image":
					if data, mime, ok := dataURL(p.ImageURL); ok {
						r.toUser(at, block{kind: bImage, data: data, mime: mime})
					}
				}
			}
		case "assistant":
			for _, p := range parts {
				if p.Type == "output_text" || p.Type == "text" {
					r.toAssistant(at, block{kind: bText, text: p.Text})
				}
			}
		}
		// developer and system messages are Codex's own instructions.
	case "reasoning":
		var texts []string
		var summary []codexText
		_ = json.Unmarshal(it.Summary, &summary)
		for _, s := range summary {
			texts = append(texts, s.Text)
		}
		var content []codexText
		if json.Unmarshal(it.Content, &content) == nil {
			for _, s := range content {
				texts = append(texts, s.Text)
			}
		}
		if t := strings.TrimSpace(strings.Join(texts, "\n\n")); t != "" {
			r.toAssistant(at, block{kind: bThinking, text: t})
		}
	case "function_call":
		r.names[it.CallID] = it.Name
		r.toAssistant(at, block{kind: bCall, callID: it.CallID, name: it.Name, args: json.RawMessage(orEmptyObject(it.Arguments))})
	case "custom_tool_call":
		r.names[it.CallID] = it.Name
		r.toAssistant(at, block{kind: bCall, callID: it.CallID, name: it.Name, args: it.Input})
	case "local_shell_call":
		r.names[it.CallID] = "local_shell"
		r.toAssistant(at, block{kind: bCall, callID: it.CallID, name: "local_shell", args: it.Action})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		out, isErr := codexOutput(it.Output)
		r.toUser(at, block{kind: bResult, callID: it.CallID, name: r.names[it.CallID], text: out, isError: isErr})
	case "web_search_call", "image_generation_call", "ghost_snapshot", "compaction", "compaction_summary":
	default:
		if !r.unknown["item:"+it.Type] {
			r.unknown["item:"+it.Type] = true
			problem(n, "unknown response item type "+quote(it.Type)+"; skipped (and any later items of that type)")
		}
	}
}

func orEmptyObject(s string) string {
	if strings.TrimSpace(s) == "" || !json.Valid([]byte(s)) {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}

// codexOutput reads a call's output: a string (which older versions made a
// JSON object {output, metadata:{exit_code}}), or an object with content.
func codexOutput(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var o struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		if json.Unmarshal(raw, &o) == nil && o.Content != nil {
			var t string
			if json.Unmarshal(o.Content, &t) != nil {
				t = string(o.Content)
			}
			return t, o.Success != nil && !*o.Success
		}
		return string(raw), false
	}
	var o struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &o) == nil && o.Output != nil {
		return *o.Output, o.Metadata.ExitCode != nil && *o.Metadata.ExitCode != 0
	}
	return s, false
}

func codexIsInjected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range codexInjected {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// codexEnvCwd reads the folder from Codex's environment note, which is
// where the older files say it.
func codexEnvCwd(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<environment_context>") {
		return ""
	}
	if i := strings.Index(t, "<cwd>"); i >= 0 {
		rest := t[i+len("<cwd>"):]
		if j := strings.Index(rest, "</cwd>"); j >= 0 {
			return strings.TrimSpace(rest[:j])
		}
	}
	if i := strings.Index(t, "Current working directory:"); i >= 0 {
		rest := t[i+len("Current working directory:"):]
		line, _, _ := strings.Cut(rest, "\n")
		return strings.TrimSpace(line)
	}
	return ""
}

// dataURL splits a data: URL holding base64 into its data and type.
func dataURL(u string) (data, mime string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	head, data, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(head, ";base64") {
		return "", "", false
	}
	return data, strings.TrimSuffix(head, ";base64"), true
}

// readCodex converts the lines of a rollout file from where rec left off.
func readCodex(ctx context.Context, fd found, rec record, c *converted, max int, problem func(int, string)) (record, error) {
	r := &codexReader{c: c, names: map[string]string{}, unknown: map[string]bool{}, model: rec.Model}
	end, next, err := eachLine(ctx, fd.path, rec.Offset, max1(rec.Line), max, problem, func(n int, text []byte) error {
		r.line(n, text, problem)
		return nil
	})
	r.flushAssistant()
	r.flushUser()
	c.finish("", true)
	rec.Offset, rec.Line, rec.Model = end, next, r.model
	return rec, err
}

package sessionimport

import (
	"encoding/json"
	"strings"
)

// pi's tools and their arguments (pi 1.6): read {path, offset?, limit?},
// write {path, content}, edit {path, edits[{oldText, newText}]}, bash
// {command, timeout? in seconds}. A source's call maps onto one of them when
// it means the same; any other call (a search, a web fetch, an edit that
// replaces every match) is kept as text, which a model still reads but pi
// never runs again.

type readArgs struct {
	Path   string   `json:"path"`
	Offset *float64 `json:"offset,omitempty"`
	Limit  *float64 `json:"limit,omitempty"`
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type editPair struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editArgs struct {
	Path  string     `json:"path"`
	Edits []editPair `json:"edits"`
}

type bashArgs struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout,omitempty"`
}

// sourceArgs are the members the sources use, by any of their names.
type sourceArgs struct {
	FilePath  string   `json:"file_path"` // Claude Code
	FilePath2 string   `json:"filePath"`  // opencode
	Path      string   `json:"path"`
	Offset    *float64 `json:"offset"`
	Limit     *float64 `json:"limit"`
	Content   *string  `json:"content"`
	OldString *string  `json:"old_string"`
	NewString *string  `json:"new_string"`
	OldStr2   *string  `json:"oldString"`
	NewStr2   *string  `json:"newString"`
	ReplAll   bool     `json:"replace_all"`
	ReplAll2  bool     `json:"replaceAll"`
	Edits     []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		ReplAll   bool   `json:"replace_all"`
	} `json:"edits"`
	Command   json.RawMessage `json:"command"` // a string, or Codex's argv
	Cmd       string          `json:"cmd"`     // Codex's exec_command
	Timeout   *float64        `json:"timeout"` // Claude Code, opencode: ms
	TimeoutMs *float64        `json:"timeout_ms"`
}

func (a sourceArgs) path() string {
	switch {
	case a.FilePath != "":
		return a.FilePath
	case a.FilePath2 != "":
		return a.FilePath2
	}
	return a.Path
}

// mapTool turns a source's tool call into pi's, ok false when pi has no
// tool that does the same.
func mapTool(src Source, name string, raw json.RawMessage) (string, json.RawMessage, bool) {
	var a sourceArgs
	if len(raw) == 0 || json.Unmarshal(raw, &a) != nil {
		return "", nil, false
	}
	var out any
	var piName string
	switch strings.ToLower(name) {
	case "read", "read_file":
		if a.path() == "" {
			return "", nil, false
		}
		piName, out = "read", readArgs{Path: a.path(), Offset: a.Offset, Limit: a.Limit}
	case "write":
		if a.path() == "" || a.Content == nil {
			return "", nil, false
		}
		piName, out = "write", writeArgs{Path: a.path(), Content: *a.Content}
	case "edit":
		old, nw := a.OldString, a.NewString
		if old == nil {
			old, nw = a.OldStr2, a.NewStr2
		}
		if a.path() == "" || old == nil || nw == nil || a.ReplAll || a.ReplAll2 {
			return "", nil, false
		}
		piName, out = "edit", editArgs{Path: a.path(), Edits: []editPair{{OldText: *old, NewText: *nw}}}
	case "multiedit":
		if a.path() == "" || len(a.Edits) == 0 {
			return "", nil, false
		}
		ed := editArgs{Path: a.path()}
		for _, e := range a.Edits {
			if e.ReplAll {
				return "", nil, false
			}
			ed.Edits = append(ed.Edits, editPair{OldText: e.OldString, NewText: e.NewString})
		}
		piName, out = "edit", ed
	case "bash", "shell", "shell_command", "exec_command", "local_shell":
		cmd := a.Cmd
		if cmd == "" {
			cmd = commandText(a.Command)
		}
		if cmd == "" {
			return "", nil, false
		}
		b := bashArgs{Command: cmd}
		ms := a.Timeout
		if src == Codex {
			ms = a.TimeoutMs
		}
		if ms != nil && *ms > 0 {
			s := *ms / 1000
			b.Timeout = &s
		}
		piName, out = "bash", b
	default:
		return "", nil, false
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", nil, false
	}
	return piName, b, true
}

// commandText reads a command given as a string or, as Codex gives it, as
// argv: ["bash", "-lc", "script"] is the script; other argv is joined with
// the words quoted where the shell needs it.
func commandText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && strings.HasSuffix(argv[0], "sh") {
		return argv[2]
	}
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

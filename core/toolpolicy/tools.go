package toolpolicy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// toolSpec describes one tool: its schema for the model, whether it needs
// approval in a permission mode, and whether it targets a path (and so
// gets an instruction preflight).
type toolSpec struct {
	name     string
	desc     string
	schema   string
	edits    bool // write or edit: approval in "ask"
	runs     bool // bash: approval in "ask" and "auto-edits"
	pathArg  string
	optional bool // the path argument may be absent (ls, grep, find)
}

var toolSpecs = []toolSpec{
	{name: "read", pathArg: "path", desc: "Read a text file. Output is cut at 2000 lines or 50 KiB; use offset (1-based line) and limit to read further, and column to read on inside a very long line.",
		schema: `{"type":"object","properties":{"path":{"type":"string","description":"file path, relative to the project root"},"offset":{"type":"integer","description":"first line to read (1-based)"},"limit":{"type":"integer","description":"number of lines"},"column":{"type":"integer","description":"byte column in the offset line to start at (1-based), to read on inside a long line"}},"required":["path"]}`},
	{name: "write", pathArg: "path", edits: true, desc: "Write a file (created or replaced, atomically). Parent folders are created.",
		schema: `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`},
	{name: "edit", pathArg: "path", edits: true, desc: "Replace one exact, unique occurrence of oldText with newText in a file.",
		schema: `{"type":"object","properties":{"path":{"type":"string"},"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["path","oldText","newText"]}`},
	{name: "bash", runs: true, desc: "Run a shell command with bash, starting in the project root. It is not confined to the project: it runs as the user. Output is cut at 50 KiB; background processes are stopped when the command ends.",
		schema: `{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer","description":"seconds, default 120"}},"required":["command"]}`},
	{name: "ls", pathArg: "path", optional: true, desc: "List a directory (default: the project root).",
		schema: `{"type":"object","properties":{"path":{"type":"string"}}}`},
	{name: "grep", pathArg: "path", optional: true, desc: "Search file contents for a regular expression, recursively from path (default: the project root).",
		schema: `{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string","description":"only files whose name matches, e.g. *.go"}},"required":["pattern"]}`},
	{name: "find", pathArg: "path", optional: true, desc: "Find files whose name matches a glob, recursively from path (default: the project root).",
		schema: `{"type":"object","properties":{"pattern":{"type":"string","description":"glob such as *.md"},"path":{"type":"string"}},"required":["pattern"]}`},
}

// DefaultTools is the full tool set.
var DefaultTools = []string{"read", "write", "edit", "bash", "ls", "grep", "find"}

func specOf(name string) (toolSpec, bool) {
	if name == ToolRemember {
		return rememberSpec, true
	}
	for _, s := range toolSpecs {
		if s.name == name {
			return s, true
		}
	}
	return toolSpec{}, false
}

// Known says whether tool is one of pi-tui's own tools (the built-in
// ones and remember).
func Known(tool string) bool {
	_, ok := specOf(tool)
	return ok
}

// Definition returns a tool's description and parameter schema, as the
// model is offered it; ok is false for a tool pi-tui does not know.
func Definition(tool string) (description string, parameters json.RawMessage, ok bool) {
	s, ok := specOf(tool)
	if !ok {
		return "", nil, false
	}
	return s.desc, json.RawMessage(s.schema), true
}

// targetOf returns the path argument of a file tool ("" when it has none
// or the tool is not a file tool).
func targetOf(tool string, raw json.RawMessage) (string, bool) {
	s, ok := specOf(tool)
	if !ok || s.pathArg == "" {
		return "", false
	}
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return "", false
	}
	p, _ := args[s.pathArg].(string)
	if p == "" && !s.optional {
		return "", false
	}
	if p == "" {
		p = "."
	}
	return p, true
}

// DecodeArgs reads a tool call's JSON arguments into v; its error is one
// sentence the model reads, naming the argument of the wrong type.
func DecodeArgs(args json.RawMessage, v any) error {
	err := json.Unmarshal(args, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("the argument %q must be a %s, not a JSON %s", te.Field, te.Type.Kind(), te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("the arguments must be a JSON object, not a JSON %s", te.Value)
	}
	return fmt.Errorf("the arguments are not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Limits of the read tool: a read returns at most readMaxLines lines or
// readMaxBytes bytes, as pi's read does, so one read cannot fill the
// model's context.
const (
	readMaxLines = 2000
	readMaxBytes = 50 * 1024
)

// outputLimit bounds what bash, grep, find and ls return to the model.
const outputLimit = 50 * 1024

// ToolCall is a call being executed.
type ToolCall struct {
	ID   string
	Name string
	Args json.RawMessage
	// Origin says who issued the call: only calls the model made get
	// nested instructions delivered with their results.
	Origin string
}

// Call origins.
const (
	OriginModel = "model"
	OriginTool  = "tool" // issued by another tool, not the model
)

// ToolResult is what a tool returns.
type ToolResult struct {
	Text    string
	IsError bool
	// Details for events and delivery: the canonical file a file tool
	// touched, and whether a read returned the whole file.
	Path     string
	FullRead bool
	Wrote    bool
	// Change is what a remember call did to the project memory.
	Change *memory.Change
}

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

// ToolDefs returns the provider tool definitions for names.
func ToolDefs(names []string) []provider.Tool {
	var out []provider.Tool
	for _, n := range names {
		if s, ok := specOf(n); ok {
			out = append(out, provider.Tool{Name: s.name, Description: s.desc, Schema: json.RawMessage(s.schema)})
		}
	}
	return out
}

// targetOf returns the path argument of a file tool ("" when it has none
// or the tool is not a file tool).
func targetOf(call ToolCall) (string, bool) {
	s, ok := specOf(call.Name)
	if !ok || s.pathArg == "" {
		return "", false
	}
	var args map[string]any
	if json.Unmarshal(call.Args, &args) != nil {
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

// toolEnv is what a tool call runs with: the bound root, the agent dir
// (for the provider key names kept out of bash's environment), and
// whether a write to a file that runs on use was approved.
type toolEnv struct {
	root string
	// folders are the session's folders, root first (nil: root alone).
	folders  confine.Folders
	agentDir string
	shell    pisettings.Shell // shellPath and shellCommandPrefix
	// runOnUseOK is set in full-auto, where a write to a file that runs on
	// use needs no approval.
	runOnUseOK bool
	// approved is the canonical path of a run-on-use file the user
	// approved writing: the approval covers that file and no other, so a
	// path that resolves elsewhere by the time of the write is refused.
	approved string
	// memory is what remember writes through (nil: no remember tool).
	memory MemoryWriter
	// progress receives bash's output while the command runs, coalesced
	// and bounded (liveOutput); nil: nobody is watching.
	progress func(chunk string, skipped int64)
}

// folderList is the folders the file tools reach.
func (env toolEnv) folderList() confine.Folders {
	if len(env.folders) > 0 {
		return env.folders
	}
	return confine.Single(env.root)
}

// run executes a tool. File tools go through an os.Root on the project
// root; bash runs in the root, unconfined.
func (env toolEnv) run(ctx context.Context, call ToolCall) ToolResult {
	var res ToolResult
	var err error
	if call.Name == "bash" {
		res, err = toolBash(ctx, env, call.Args)
	} else if call.Name == ToolRemember {
		res, err = toolRemember(ctx, env.memory, call.Args)
	} else {
		p := newFiles(env.folderList())
		defer p.close()
		switch call.Name {
		case "read":
			res, err = toolRead(p, call.Args)
		case "write":
			res, err = toolWrite(p, env, call.Args)
		case "edit":
			res, err = toolEdit(p, env, call.Args)
		case "ls":
			res, err = toolLs(p, call.Args)
		case "grep":
			res, err = toolGrep(ctx, p, call.Args)
		case "find":
			res, err = toolFind(ctx, p, call.Args)
		default:
			err = fmt.Errorf("there is no tool named %q", call.Name)
		}
	}
	if err != nil {
		return ToolResult{Text: "Error: " + err.Error(), IsError: true, Path: res.Path}
	}
	return res
}

func decode(args json.RawMessage, v any) error {
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

// guardRunOnUse refuses a write to a file that runs on use unless the call
// was approved for it. The agent asks before the call; this check, made
// again on the path the tool resolved itself, covers a path that changed
// in between.
func guardRunOnUse(fl *files, p *project, env toolEnv, canon, name string) error {
	if env.runOnUseOK {
		return nil
	}
	if why := runOnUseIn(fl.folders, p.root, canon); why != "" && canon != env.approved {
		return fmt.Errorf("%s needs the user's approval: %s", name, why)
	}
	return nil
}

func toolWrite(fl *files, env toolEnv, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	if a.Content == nil {
		return ToolResult{}, errors.New("content is missing")
	}
	p, pl, err := fl.resolve(a.Path)
	if err != nil {
		return ToolResult{Path: pl.Canon}, err
	}
	canon := pl.Canon
	res := ToolResult{Path: canon}
	if err := guardRunOnUse(fl, p, env, canon, a.Path); err != nil {
		return res, err
	}
	fd, err := p.openDir(canon, true)
	if err != nil {
		return res, writeError("write", a.Path, err)
	}
	defer fd.close()
	if err := fd.write([]byte(*a.Content)); err != nil {
		return res, writeError("write", a.Path, err)
	}
	res.Wrote = true
	res.Text = fmt.Sprintf("Wrote %d bytes to %s.", len(*a.Content), pl.Label())
	return res, nil
}

func toolEdit(fl *files, env toolEnv, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path    string `json:"path"`
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	p, pl, err := fl.resolve(a.Path)
	if err != nil {
		return ToolResult{Path: pl.Canon}, err
	}
	canon := pl.Canon
	res := ToolResult{Path: canon}
	if a.OldText == "" {
		return res, errors.New("oldText is empty; to create a file use write")
	}
	if err := guardRunOnUse(fl, p, env, canon, a.Path); err != nil {
		return res, err
	}
	fd, err := p.openDir(canon, false)
	if err != nil {
		return res, confine.FileError(a.Path, err)
	}
	defer fd.close()
	data, _, err := fd.readRegular()
	if err != nil {
		return res, confine.FileError(a.Path, err)
	}
	switch n := strings.Count(string(data), a.OldText); n {
	case 0:
		return res, fmt.Errorf("oldText was not found in %s; read the file and copy the text exactly, including white space", a.Path)
	case 1:
	default:
		return res, fmt.Errorf("oldText occurs %d times in %s; include more surrounding lines so it is unique", n, a.Path)
	}
	out := strings.Replace(string(data), a.OldText, a.NewText, 1)
	if err := fd.write([]byte(out)); err != nil {
		return res, writeError("edit", a.Path, err)
	}
	res.Text = fmt.Sprintf("Edited %s.", pl.Label())
	return res, nil
}

// limitedBuffer keeps the first outputLimit bytes written to it.
type limitedBuffer struct {
	buf bytes.Buffer
	cut bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := outputLimit - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
			l.cut = true
		} else {
			l.buf.Write(p)
		}
	} else if len(p) > 0 {
		l.cut = true
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return strings.ToValidUTF8(l.buf.String(), "\uFFFD") }

func toolLs(fl *files, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	p, pl, err := fl.resolve(a.Path)
	if err != nil {
		return ToolResult{Path: pl.Canon}, err
	}
	canon := pl.Canon
	res := ToolResult{Path: canon}
	name := pl.Label()
	f, err := p.r.OpenFile(p.rel(canon), os.O_RDONLY|fsutil.ONonblock, 0)
	if err != nil {
		return res, confine.FileError(name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return res, confine.FileError(name, err)
	} else if !fi.IsDir() {
		return res, fmt.Errorf("%s is not a directory (it is %s); use read for a file", name, fsutil.Kind(fi.Mode()))
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return res, confine.FileError(name, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var b limitedBuffer
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		fmt.Fprintln(&b, n)
	}
	res.Text = b.String()
	if res.Text == "" {
		res.Text = "(empty directory)"
	}
	if b.cut {
		res.Text += "\n[Listing cut.]"
	}
	return res, nil
}

// walk visits the files below start (a name in the root's io/fs view)
// that are not directories, skipping .git and node_modules. It reads the
// tree through the os.Root, so it never leaves the root, and it follows no
// links: a link is visited as a link. A folder that cannot be read is
// passed to unreadable (when set).
func walk(ctx context.Context, p *project, start string, visit func(name string, d fs.DirEntry) bool, unreadable func(name string)) error {
	return fs.WalkDir(p.r.FS(), start, func(name string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if unreadable != nil {
				unreadable(name)
			}
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); name != start && (n == ".git" || n == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !visit(name, d) {
			return fs.SkipAll
		}
		return nil
	})
}

func toolFind(ctx context.Context, fl *files, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	if _, err := path.Match(a.Pattern, ""); err != nil {
		return ToolResult{}, fmt.Errorf("pattern is not a valid glob: %v", err)
	}
	p, pl, err := fl.resolve(a.Path)
	if err != nil {
		return ToolResult{Path: pl.Canon}, err
	}
	canon := pl.Canon
	res := ToolResult{Path: canon}
	var found []string
	err = walk(ctx, p, p.fsName(canon), func(name string, d fs.DirEntry) bool {
		if !d.Type().IsRegular() {
			return true
		}
		if ok, _ := path.Match(a.Pattern, d.Name()); ok {
			found = append(found, p.shown(name))
		}
		return len(found) < 5000
	}, nil)
	if err != nil {
		return res, err
	}
	sort.Strings(found)
	var b limitedBuffer
	for _, f := range found {
		fmt.Fprintln(&b, f)
	}
	res.Text = b.String()
	if len(found) == 0 {
		res.Text = "No files found."
	}
	if b.cut || len(found) == 5000 {
		res.Text += "\n[Results cut; narrow the pattern or the path.]"
	}
	return res, nil
}

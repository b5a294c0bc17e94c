package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Limits of the read tool (DESIGN §7).
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
	{name: "read", pathArg: "path", desc: "Read a text file. Output is cut at 2000 lines or 50 KiB; use offset (1-based line) and limit to read further.",
		schema: `{"type":"object","properties":{"path":{"type":"string","description":"file path, relative to the project root"},"offset":{"type":"integer","description":"first line to read (1-based)"},"limit":{"type":"integer","description":"number of lines"}},"required":["path"]}`},
	{name: "write", pathArg: "path", edits: true, desc: "Write a file (created or replaced, atomically). Parent folders are created.",
		schema: `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`},
	{name: "edit", pathArg: "path", edits: true, desc: "Replace one exact, unique occurrence of oldText with newText in a file.",
		schema: `{"type":"object","properties":{"path":{"type":"string"},"oldText":{"type":"string"},"newText":{"type":"string"}},"required":["path","oldText","newText"]}`},
	{name: "bash", runs: true, desc: "Run a shell command in the project root. Output is cut at 50 KiB.",
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

// runTool executes a tool confined to root.
func runTool(ctx context.Context, root string, call ToolCall) ToolResult {
	var res ToolResult
	var err error
	switch call.Name {
	case "read":
		res, err = toolRead(root, call.Args)
	case "write":
		res, err = toolWrite(root, call.Args)
	case "edit":
		res, err = toolEdit(root, call.Args)
	case "bash":
		res, err = toolBash(ctx, root, call.Args)
	case "ls":
		res, err = toolLs(root, call.Args)
	case "grep":
		res, err = toolGrep(ctx, root, call.Args)
	case "find":
		res, err = toolFind(ctx, root, call.Args)
	default:
		err = fmt.Errorf("there is no tool named %q", call.Name)
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

func toolRead(root string, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
		Limit  int    `json:"limit"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	p, err := Confine(root, a.Path)
	if err != nil {
		return ToolResult{}, err
	}
	res := ToolResult{Path: p}
	fi, err := os.Stat(p)
	if err != nil {
		return res, fmt.Errorf("%s: %v", a.Path, fsutil.PlainError(err))
	}
	if fi.IsDir() {
		return res, fmt.Errorf("%s is a directory; use ls", a.Path)
	}
	if !fi.Mode().IsRegular() {
		return res, fmt.Errorf("%s is not a regular file", a.Path)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return res, fmt.Errorf("%s: %v", a.Path, fsutil.PlainError(err))
	}
	defer f.Close()
	offset := max(a.Offset, 1)
	limit := a.Limit
	if limit <= 0 || limit > readMaxLines {
		limit = readMaxLines
	}
	br := bufio.NewReaderSize(f, 64*1024)
	var out strings.Builder
	line, lines := 0, 0
	cut := false
	for {
		text, err := br.ReadString('\n')
		if text == "" && err != nil {
			break
		}
		line++
		if line < offset {
			continue
		}
		if lines == limit || out.Len()+len(text) > readMaxBytes {
			cut = true
			break
		}
		out.WriteString(text)
		lines++
		if err != nil {
			break
		}
	}
	body := out.String()
	if bytes.IndexByte([]byte(body), 0) >= 0 {
		return res, fmt.Errorf("%s looks binary (it contains NUL bytes)", a.Path)
	}
	if !utf8.ValidString(body) {
		body = strings.ToValidUTF8(body, "\uFFFD")
	}
	if line < offset && offset > 1 {
		return res, fmt.Errorf("%s has %d lines; offset %d is past the end", a.Path, line, offset)
	}
	res.FullRead = offset == 1 && !cut
	if cut {
		body += fmt.Sprintf("\n[Output cut at line %d of %s. Continue with offset %d.]", offset+lines-1, a.Path, offset+lines)
	}
	res.Text = body
	return res, nil
}

// writeAtomic writes data to p through a temp file in the same directory,
// keeping an existing file's mode.
func writeAtomic(p string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(p); err == nil {
		if !fi.Mode().IsRegular() {
			return errors.New("it is not a regular file")
		}
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fsutil.PlainError(err)
	}
	return atomicfile.Write(p, data, mode)
}

func toolWrite(root string, raw json.RawMessage) (ToolResult, error) {
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
	p, err := Confine(root, a.Path)
	if err != nil {
		return ToolResult{}, err
	}
	if err := writeAtomic(p, []byte(*a.Content)); err != nil {
		return ToolResult{Path: p}, fmt.Errorf("write %s: %v", a.Path, err)
	}
	return ToolResult{Path: p, Wrote: true, Text: fmt.Sprintf("Wrote %d bytes to %s.", len(*a.Content), displayRel(root, p))}, nil
}

func toolEdit(root string, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path    string `json:"path"`
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	p, err := Confine(root, a.Path)
	if err != nil {
		return ToolResult{}, err
	}
	res := ToolResult{Path: p}
	if a.OldText == "" {
		return res, errors.New("oldText is empty; to create a file use write")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return res, fmt.Errorf("%s: %v", a.Path, fsutil.PlainError(err))
	}
	switch n := strings.Count(string(data), a.OldText); n {
	case 0:
		return res, fmt.Errorf("oldText was not found in %s; read the file and copy the text exactly, including white space", a.Path)
	case 1:
	default:
		return res, fmt.Errorf("oldText occurs %d times in %s; include more surrounding lines so it is unique", n, a.Path)
	}
	out := strings.Replace(string(data), a.OldText, a.NewText, 1)
	if err := writeAtomic(p, []byte(out)); err != nil {
		return res, fmt.Errorf("edit %s: %v", a.Path, err)
	}
	res.Text = fmt.Sprintf("Edited %s.", displayRel(root, p))
	return res, nil
}

func toolBash(ctx context.Context, root string, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return ToolResult{}, errors.New("command is empty")
	}
	timeout := time.Duration(a.Timeout) * time.Second
	if timeout <= 0 || timeout > 30*time.Minute {
		timeout = 120 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", a.Command)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := out.String()
	if out.cut {
		text += fmt.Sprintf("\n[Output cut at %d KiB.]", outputLimit/1024)
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return ToolResult{Text: text + fmt.Sprintf("\n[Timed out after %s.]", timeout), IsError: true}, nil
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ToolResult{Text: text + fmt.Sprintf("\n[Exit status %d.]", ee.ExitCode()), IsError: true}, nil
		}
		return ToolResult{}, fmt.Errorf("cannot run the command: %v", err)
	}
	if text == "" {
		text = "(no output)"
	}
	return ToolResult{Text: text}, nil
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

func toolLs(root string, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	p, err := Confine(root, a.Path)
	if err != nil {
		return ToolResult{}, err
	}
	res := ToolResult{Path: p}
	ents, err := os.ReadDir(p)
	if err != nil {
		return res, fmt.Errorf("%s: %v", displayRel(root, p), fsutil.PlainError(err))
	}
	var b limitedBuffer
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		fmt.Fprintln(&b, name)
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

// walk visits regular files below dir, skipping .git and node_modules and
// never following links out of root.
func walk(ctx context.Context, root, dir string, visit func(path string, d fs.DirEntry) bool) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if n := d.Name(); path != dir && (n == ".git" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if !visit(path, d) {
			return filepath.SkipAll
		}
		return nil
	})
}

func toolGrep(ctx context.Context, root string, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Glob    string `json:"glob"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return ToolResult{}, fmt.Errorf("pattern is not a valid regular expression: %v", err)
	}
	p, err := Confine(root, a.Path)
	if err != nil {
		return ToolResult{}, err
	}
	res := ToolResult{Path: p}
	var b limitedBuffer
	matches := 0
	grepFile := func(path string) {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(io.LimitReader(f, 8<<20))
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			if bytes.IndexByte(line, 0) >= 0 {
				return // binary
			}
			if re.Match(line) {
				matches++
				fmt.Fprintf(&b, "%s:%d: %s\n", displayRel(root, path), n, line)
			}
		}
	}
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		grepFile(p)
	} else {
		err := walk(ctx, root, p, func(path string, d fs.DirEntry) bool {
			if a.Glob != "" {
				if ok, _ := filepath.Match(a.Glob, d.Name()); !ok {
					return true
				}
			}
			grepFile(path)
			return !b.cut
		})
		if err != nil {
			return res, err
		}
	}
	res.Text = b.String()
	if matches == 0 {
		res.Text = "No matches."
	}
	if b.cut {
		res.Text += "\n[Matches cut at 50 KiB; narrow the pattern or the path.]"
	}
	return res, nil
}

func toolFind(ctx context.Context, root string, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if err := decode(raw, &a); err != nil {
		return ToolResult{}, err
	}
	if _, err := filepath.Match(a.Pattern, ""); err != nil {
		return ToolResult{}, fmt.Errorf("pattern is not a valid glob: %v", err)
	}
	p, err := Confine(root, a.Path)
	if err != nil {
		return ToolResult{}, err
	}
	res := ToolResult{Path: p}
	var found []string
	err = walk(ctx, root, p, func(path string, d fs.DirEntry) bool {
		if ok, _ := filepath.Match(a.Pattern, d.Name()); ok {
			found = append(found, displayRel(root, path))
		}
		return len(found) < 5000
	})
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

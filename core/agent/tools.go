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
	"github.com/pi-tui/pi-tui/core/toolpolicy"
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

// ToolDefs returns the provider tool definitions for names.
func ToolDefs(names []string) []provider.Tool {
	var out []provider.Tool
	for _, n := range names {
		if desc, schema, ok := toolpolicy.Definition(n); ok {
			out = append(out, provider.Tool{Name: n, Description: desc, Schema: schema})
		}
	}
	return out
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
	memory toolpolicy.MemoryWriter
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
	} else if call.Name == toolpolicy.ToolRemember {
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

// guardRunOnUse refuses a write to a file that runs on use unless the call
// was approved for it. The agent asks before the call; this check, made
// again on the path the tool resolved itself, covers a path that changed
// in between.
func guardRunOnUse(fl *files, p *project, env toolEnv, canon, name string) error {
	if env.runOnUseOK {
		return nil
	}
	if why := toolpolicy.RunOnUseIn(fl.folders, p.root, canon); why != "" && canon != env.approved {
		return fmt.Errorf("%s needs the user's approval: %s", name, why)
	}
	return nil
}

func toolWrite(fl *files, env toolEnv, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Path    string  `json:"path"`
		Content *string `json:"content"`
	}
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
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
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
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
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
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
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
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

// Package pisettings reads pi's settings.json files, which pi-tui shares
// with pi: the global A/settings.json and a project's .pi/settings.json,
// merged as pi merges them. Only the keys pi-tui uses are read here;
// writers elsewhere must keep every other key as it was.
package pisettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/internal/jsonpos"
)

// FileName is the settings file inside the agent dir, and inside a
// project's .pi folder.
const FileName = "settings.json"

// ProjectDir is the folder of a project that holds pi's project settings,
// skills and prompt templates.
const ProjectDir = ".pi"

// maxSize bounds how much of settings.json is read.
const maxSize = 1 << 20

// Defaults are the model defaults pi keeps in settings.json.
type Defaults struct {
	Provider string `json:"defaultProvider"`
	Model    string `json:"defaultModel"`
}

// ReadDefaults returns the default provider and model. A missing file is
// no defaults and no error; an unreadable or invalid one is an error that
// names the file (and, for broken JSON, the line and column).
func ReadDefaults(agentDir string) (Defaults, error) {
	path := filepath.Join(agentDir, FileName)
	data, _, err := fsutil.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults{}, nil
	}
	if err != nil {
		return Defaults{}, fmt.Errorf("read %s: %w", path, fsutil.PlainError(err))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(stripBOM(data), &raw); err != nil {
		return Defaults{}, JSONError(path, stripBOM(data), err)
	}
	var d Defaults
	for key, dst := range map[string]*string{"defaultProvider": &d.Provider, "defaultModel": &d.Model} {
		if v, ok := raw[key]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return Defaults{}, fmt.Errorf("%s: %s must be a string", path, key)
			}
		}
	}
	d.Provider, d.Model = strings.TrimSpace(d.Provider), strings.TrimSpace(d.Model)
	return d, nil
}

// ParseModel splits "PROVIDER/ID" (the id may itself contain slashes, as
// in openrouter/anthropic/claude-sonnet-4).
func ParseModel(s string) (provider, id string, err error) {
	provider, id, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || provider == "" || id == "" {
		return "", "", fmt.Errorf("model %q must be written PROVIDER/ID, for example anthropic/claude-sonnet-4-5", s)
	}
	return provider, id, nil
}

// FileError says that a JSON file pi-tui shares with pi cannot be used,
// and where: the user fixes it by hand, so the sentence names the file and
// the line and column of the first problem.
type FileError struct {
	Path         string
	Line, Column int    // 1-based; 0 when the problem has no position
	Problem      string // what is wrong there
}

func (e *FileError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s is not usable: %s", e.Path, e.Problem)
	case e.Problem == "":
		return fmt.Sprintf("%s is not valid JSON at line %d, column %d", e.Path, e.Line, e.Column)
	}
	return fmt.Sprintf("%s is not valid JSON at line %d, column %d: %s", e.Path, e.Line, e.Column, e.Problem)
}

// JSONError turns an error of encoding/json over data (a syntax error or
// a value of the wrong type) into a *FileError with its line and column.
// It never quotes the file's content (encoding/json's messages quote the
// offending character), so it is safe for files that hold keys
// (auth.json, models.json).
func JSONError(path string, data []byte, err error) error {
	var typ *json.UnmarshalTypeError
	line, col, eof, ok := jsonpos.Of(data, err)
	switch {
	case ok && errors.As(err, &typ):
		where := "the value"
		if typ.Field != "" {
			where = typ.Field
		}
		return &FileError{Path: path, Line: line, Column: col, Problem: where + " must be " + kindOf(typ.Type.Kind().String()) + ", not " + typ.Value}
	case ok && eof:
		return &FileError{Path: path, Line: line, Column: col, Problem: "it ends too early"}
	case ok:
		return &FileError{Path: path, Line: line, Column: col}
	case errors.Is(err, errNotObject):
		return &FileError{Path: path, Problem: "the top level is not a JSON object"}
	}
	return &FileError{Path: path, Problem: err.Error()}
}

func kindOf(k string) string {
	switch k {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "a list"
	case "ptr", "interface":
		return "a value of another type"
	}
	if strings.HasPrefix(k, "int") || strings.HasPrefix(k, "uint") || strings.HasPrefix(k, "float") {
		return "a number"
	}
	return "a " + k
}

// Position turns a byte offset into a 1-based line and column; columns
// count characters, as an editor shows them.
func Position(data []byte, off int) (line, col int) { return jsonpos.At(data, off) }

var errNotObject = errors.New("the top level is not a JSON object")

// stripBOM drops a leading UTF-8 byte order mark, as pi does.
func stripBOM(data []byte) []byte { return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) }

// Source is one settings file as read: its path and its top-level object
// (nil when the file is missing or could not be used).
type Source struct {
	Path   string
	Values map[string]any
}

// Effective are pi's settings in effect for a project: the global file
// with the project's .pi/settings.json merged over it (objects merge
// key by key, at every depth; any other value, arrays included, replaces
// the global one). The project file counts only for a trusted project.
type Effective struct {
	merged  map[string]any
	global  map[string]any
	project map[string]any // empty unless the project is trusted
	// Problems are the files that could not be used, one sentence each;
	// such a file counts as empty, as it does for pi.
	Problems []error
	// Warnings are values of the wrong type; the default applies.
	Warnings []string
}

// Load reads and merges the settings in effect for a project root ("" for
// none). An unreadable or invalid file is reported in Problems and counts
// as empty; it is never rewritten.
func Load(agentDir, root string, projectTrusted bool) Effective {
	var e Effective
	g, err := readObject(filepath.Join(agentDir, FileName))
	if err != nil {
		e.Problems = append(e.Problems, err)
	}
	e.global, e.merged, e.project = g, g, map[string]any{}
	if root != "" && projectTrusted {
		p, err := readObject(filepath.Join(root, ProjectDir, FileName))
		if err != nil {
			e.Problems = append(e.Problems, err)
		}
		e.project = p
		e.merged = merge(g, p)
	}
	return e
}

// readObject reads a settings file into a map (numbers kept exact). A
// missing or empty file is an empty map.
func readObject(path string) (map[string]any, error) {
	data, _, err := fsutil.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return map[string]any{}, fmt.Errorf("%s cannot be read: %w", path, fsutil.PlainError(err))
	}
	data = stripBOM(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		// Decode reports syntax errors at the offset of the whole input.
		if err2 := json.Unmarshal(data, new(any)); err2 != nil {
			err = err2
		}
		return map[string]any{}, JSONError(path, data, err)
	}
	if rest := data[dec.InputOffset():]; len(bytes.TrimSpace(rest)) > 0 {
		off := int(dec.InputOffset()) + len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
		line, col := Position(data, off)
		return map[string]any{}, &FileError{Path: path, Line: line, Column: col, Problem: "unexpected data after the JSON object"}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}, JSONError(path, data, errNotObject)
	}
	return obj, nil
}

// merge returns base with over merged into it, as pi merges settings:
// objects on both sides merge recursively; anything else from over wins.
func merge(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bo, ok1 := out[k].(map[string]any)
		oo, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = merge(bo, oo)
			continue
		}
		out[k] = v
	}
	return out
}

// lookup follows a dotted path through nested objects of m.
func lookup(m map[string]any, path string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, cur != nil
}

func (e *Effective) boolAt(path string, def bool) bool {
	v, ok := lookup(e.merged, path)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		e.Warnings = append(e.Warnings, fmt.Sprintf("settings: %s must be true or false; the default (%v) applies", path, def))
		return def
	}
	return b
}

// intAt returns a whole number at path, and whether one was set.
func (e *Effective) intAt(path string, def int) (int, bool) {
	v, ok := lookup(e.merged, path)
	if !ok {
		return def, false
	}
	n, isNum := v.(json.Number)
	if isNum {
		if f, err := n.Float64(); err == nil && f >= 0 && f <= 1<<40 {
			return int(f), true
		}
	}
	e.Warnings = append(e.Warnings, fmt.Sprintf("settings: %s must be a number of at least 0; the default (%d) applies", path, def))
	return def, false
}

func (e *Effective) stringAt(m map[string]any, path string) string {
	v, ok := lookup(m, path)
	if !ok {
		return ""
	}
	s, isString := v.(string)
	if !isString {
		e.Warnings = append(e.Warnings, fmt.Sprintf("settings: %s must be a string; it is ignored", path))
	}
	return s
}

func (e *Effective) stringsAt(m map[string]any, path string) []string {
	v, ok := lookup(m, path)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		} else {
			isList = false
		}
	}
	if !isList {
		e.Warnings = append(e.Warnings, fmt.Sprintf("settings: %s must be a list of paths; what is not a string is ignored", path))
	}
	return out
}

// Compaction decides automatic compaction, as pi's compaction.* keys do.
type Compaction struct {
	Enabled bool
	// ReserveTokens: compact when the context exceeds the window less
	// this many tokens.
	ReserveTokens int
	// KeepRecentTokens: about this many tokens of the newest entries
	// stay as they are; what is older is summarised.
	KeepRecentTokens int
}

// Compaction returns compaction.* with pi's defaults (on, 16384, 20000).
func (e *Effective) Compaction() Compaction {
	reserve, _ := e.intAt("compaction.reserveTokens", 16384)
	keep, _ := e.intAt("compaction.keepRecentTokens", 20000)
	return Compaction{Enabled: e.boolAt("compaction.enabled", true), ReserveTokens: reserve, KeepRecentTokens: keep}
}

// Retry is retry.*: whether and how often a failed model call is tried
// again. MaxRetries and BaseDelay are nil when the settings do not set
// them, so the caller's own defaults stay.
type Retry struct {
	Enabled    bool
	MaxRetries *int
	BaseDelay  *time.Duration
}

// Retry returns retry.* (enabled unless retry.enabled is false).
func (e *Effective) Retry() Retry {
	r := Retry{Enabled: e.boolAt("retry.enabled", true)}
	if n, ok := e.intAt("retry.maxRetries", 3); ok {
		r.MaxRetries = &n
	}
	if ms, ok := e.intAt("retry.baseDelayMs", 2000); ok {
		d := time.Duration(ms) * time.Millisecond
		r.BaseDelay = &d
	}
	return r
}

// Shell is how bash commands run: shellPath replaces bash, and
// shellCommandPrefix goes on a line of its own before every command.
type Shell struct {
	Path   string // "" = bash from PATH
	Prefix string
}

// Shell returns shellPath (a leading ~ expanded with home) and
// shellCommandPrefix.
func (e *Effective) Shell(home string) Shell {
	p := e.stringAt(e.merged, "shellPath")
	switch {
	case p == "~" && home != "":
		p = home
	case strings.HasPrefix(p, "~/") && home != "":
		p = filepath.Join(home, p[2:])
	}
	return Shell{Path: p, Prefix: e.stringAt(e.merged, "shellCommandPrefix")}
}

// ResourcePaths returns the entries of the "skills" or "prompts" key of
// the global file and of the project's file (trusted projects only). pi
// reads the two lists side by side, each relative to its own folder, so
// they are not merged.
func (e *Effective) ResourcePaths(key string) (global, project []string) {
	return e.stringsAt(e.global, key), e.stringsAt(e.project, key)
}

// EnableSkillCommands reports whether /skill:name commands exist (pi's
// enableSkillCommands, on by default).
func (e *Effective) EnableSkillCommands() bool { return e.boolAt("enableSkillCommands", true) }

// SessionDir is sessionDir from the global file only ("" when unset or
// not a string): the one folder pi keeps every session file in.
// paths.SessionFolder decides the folder; this only reads the setting.
func (e *Effective) SessionDir() string {
	d, _ := e.global["sessionDir"].(string)
	return d
}

// Project trust defaults (defaultProjectTrust).
const (
	TrustAsk    = "ask"
	TrustAlways = "always"
	TrustNever  = "never"
)

// DefaultProjectTrust is defaultProjectTrust from the global file only (a
// project cannot vouch for itself): "always", "never", or "ask" for
// anything else.
func (e *Effective) DefaultProjectTrust() string {
	switch v, _ := e.global["defaultProjectTrust"].(string); v {
	case TrustAlways, TrustNever:
		return v
	}
	return TrustAsk
}

// Problem joins the problems into one line ("" when there are none), for
// a status bar.
func (e *Effective) Problem() string {
	var parts []string
	for _, p := range e.Problems {
		parts = append(parts, p.Error())
	}
	return strings.Join(parts, "; ")
}

// Brief is a problem short enough for a status bar: a *FileError as
// FILE:LINE:COLUMN (the file written with ~ for home) and what is wrong in
// a few words; anything else as it is.
func Brief(err error, home string) string {
	var fe *FileError
	if !errors.As(err, &fe) {
		return err.Error()
	}
	path := fe.Path
	if home != "" && strings.HasPrefix(path, home+string(filepath.Separator)) {
		path = "~" + path[len(home):]
	}
	if fe.Line == 0 {
		return path + " is not usable"
	}
	return fmt.Sprintf("%s:%d:%d is not valid JSON", path, fe.Line, fe.Column)
}

package sessionimport

import (
	"path/filepath"
	"time"
)

// Source is an agent whose sessions can be imported.
type Source string

// The sources.
const (
	Claude   Source = "claude"
	Codex    Source = "codex"
	OpenCode Source = "opencode"
)

// Sources are every source, in the order an import reads them.
var Sources = []Source{Claude, Codex, OpenCode}

// ParseSource reads a --from value: one source's name, or "all".
func ParseSource(s string) ([]Source, bool) {
	if s == "all" || s == "" {
		return Sources, true
	}
	for _, src := range Sources {
		if string(src) == s {
			return []Source{src}, true
		}
	}
	return nil, false
}

// Name is how the user knows the source.
func (s Source) Name() string {
	switch s {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex"
	case OpenCode:
		return "opencode"
	}
	return string(s)
}

// Locations are the folders the sources keep their sessions in.
type Locations struct {
	Claude   string // ~/.claude (or $CLAUDE_CONFIG_DIR)
	Codex    string // ~/.codex (or $CODEX_HOME)
	OpenCode string // ~/.local/share/opencode ($XDG_DATA_HOME/opencode)
}

// DefaultLocations are the folders each agent uses, from the environment
// as the agents themselves read it.
func DefaultLocations(env func(string) string) Locations {
	home := env("HOME")
	l := Locations{
		Claude:   filepath.Join(home, ".claude"),
		Codex:    filepath.Join(home, ".codex"),
		OpenCode: filepath.Join(home, ".local", "share", "opencode"),
	}
	if d := env("CLAUDE_CONFIG_DIR"); filepath.IsAbs(d) {
		l.Claude = d
	}
	if d := env("CODEX_HOME"); filepath.IsAbs(d) {
		l.Codex = d
	}
	if d := env("XDG_DATA_HOME"); filepath.IsAbs(d) {
		l.OpenCode = filepath.Join(d, "opencode")
	}
	return l
}

// Project is a registered project sessions may go to.
type Project struct {
	ID   string
	Name string
	Root string // absolute; a session run in Root or below it belongs here
	Dir  string // pi's session folder for Root
}

// Options say what to import and how to report.
type Options struct {
	Sources  []Source  // Sources when empty
	Projects []Project // the registered projects
	// Only, when set, keeps the import to the project with this id.
	Only   string
	DryRun bool
	// Progress, when set, is called after each source session with the
	// count done and the count found.
	Progress func(done, total int)
	// MaxLineBytes bounds one line of a source file (DefaultMaxLineBytes
	// when 0); a longer line is reported and skipped.
	MaxLineBytes int
	// Now is the clock (time.Now when nil); it only dates an entry whose
	// source gave no time.
	Now func() time.Time
}

// DefaultMaxLineBytes bounds one line of a source file. Real lines carry a
// file's contents or an image at most; a longer one is skipped, reported.
const DefaultMaxLineBytes = 32 << 20

// Result is what an import did (or, dry, would do).
type Result struct {
	Sessions  []Session   `json:"sessions"`  // written or appended to
	Unchanged int         `json:"unchanged"` // imported before, nothing new
	Unmatched []Unmatched `json:"unmatched"` // no project holds their folder
	Problems  []Problem   `json:"problems"`  // lines and files skipped
	Found     int         `json:"found"`     // source sessions seen
}

// Session is one source session written (or to be written) as a pi file.
type Session struct {
	Source    Source `json:"source"`
	SourceID  string `json:"sourceId"`
	From      string `json:"from"` // the source file or database
	ProjectID string `json:"projectId"`
	Project   string `json:"project"`
	File      string `json:"file"`    // the pi session file
	ID        string `json:"id"`      // the pi session id
	Title     string `json:"title"`   // "" when the source has none
	Entries   int    `json:"entries"` // entries written by this import
	Appended  bool   `json:"appended"`
}

// Unmatched are the sessions of a folder no registered project holds.
type Unmatched struct {
	Cwd      string `json:"cwd"`
	Sessions int    `json:"sessions"`
}

// Problem is one thing skipped: a line, a file, a database.
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Msg  string `json:"message"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return p.File + ":" + itoa(p.Line) + ": " + p.Msg
	}
	return p.File + ": " + p.Msg
}

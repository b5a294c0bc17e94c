// Package paths decides where pi-tui's files live: the agent dir shared
// with pi (instructions, models, settings) and pi-tui's own data dir (the
// database, keys, logs). The environment is passed in, never read from
// globals, so tests and SSH sessions can each have their own.
package paths

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/store"
)

// Env looks up an environment variable; os.Getenv fits.
type Env func(string) string

// Places are the directories in use.
type Places struct {
	AgentDir string
	DataDir  string
	Home     string
	// SessionDir, when set, is the one folder holding every session file
	// (see SessionFolder); empty, each project's sessions live in pi's
	// folder for it under AgentDir/sessions.
	SessionDir string
}

// Database is the path of the SQLite database.
func (p Places) Database() string { return filepath.Join(p.DataDir, store.FileName) }

// Checkpoints is the folder of the checkpoint store (core/checkpoints):
// what each file-changing tool call did, for review and undo.
func (p Places) Checkpoints() string { return filepath.Join(p.DataDir, "checkpoints") }

// Resolve finds the two folders: the agent dir is --agent-dir, else
// $PI_CODING_AGENT_DIR (a leading ~ expanded), else ~/.pi/agent; the data dir
// is --data-dir, else $PI_TUI_DATA_DIR, else $XDG_DATA_HOME/pi-tui, else
// ~/.local/share/pi-tui. Relative results are made absolute. The session
// folder is worked out here too (SessionFolder), once for the process.
func Resolve(agentFlag, dataFlag string, env Env) (Places, error) {
	home := env("HOME")
	p := Places{Home: home}
	needHome := func() error {
		if home == "" {
			return errors.New("HOME is not set: pass --agent-dir and --data-dir")
		}
		return nil
	}
	switch {
	case agentFlag != "":
		p.AgentDir = ExpandHome(agentFlag, home)
	case env("PI_CODING_AGENT_DIR") != "":
		p.AgentDir = ExpandHome(env("PI_CODING_AGENT_DIR"), home)
	default:
		if err := needHome(); err != nil {
			return p, err
		}
		p.AgentDir = filepath.Join(home, ".pi", "agent")
	}
	switch {
	case dataFlag != "":
		p.DataDir = ExpandHome(dataFlag, home)
	case env("PI_TUI_DATA_DIR") != "":
		p.DataDir = ExpandHome(env("PI_TUI_DATA_DIR"), home)
	case filepath.IsAbs(env("XDG_DATA_HOME")):
		// The XDG spec says relative values are invalid and to be ignored.
		p.DataDir = filepath.Join(env("XDG_DATA_HOME"), "pi-tui")
	default:
		if err := needHome(); err != nil {
			return p, err
		}
		p.DataDir = filepath.Join(home, ".local", "share", "pi-tui")
	}
	var err error
	if p.AgentDir, err = filepath.Abs(p.AgentDir); err != nil {
		return p, err
	}
	if p.DataDir, err = filepath.Abs(p.DataDir); err != nil {
		return p, err
	}
	p.SessionDir = SessionFolder(p.AgentDir, home, env)
	return p, nil
}

// ExpandHome expands a leading "~" or "~/" as pi does; "~user" is left alone.
func ExpandHome(path, home string) string {
	if home == "" {
		return path
	}
	if path == "~" {
		return home
	}
	if strings.HasPrefix(path, "~/") {
		return filepath.Join(home, path[2:])
	}
	return path
}

// Tilde writes path with "~" for the home directory, for display.
func Tilde(path, home string) string {
	if home == "" || home == "/" {
		return path
	}
	home = filepath.Clean(home)
	if path == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(path, home+string(filepath.Separator)); ok {
		return "~/" + filepath.ToSlash(rest)
	}
	return path
}

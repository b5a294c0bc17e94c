package paths

import (
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// SessionEnv is pi's variable naming one folder for every session file.
const SessionEnv = "PI_CODING_AGENT_SESSION_DIR"

// SessionFolder is pi's one folder for every session file, as pi picks
// it: $PI_CODING_AGENT_SESSION_DIR, else the sessionDir of the agent
// dir's settings.json (a leading ~ expanded with home, a relative path
// taken from the agent dir). "" means none: each project's sessions go to
// pi's folder for it under agentDir/sessions. A settings file that cannot
// be read or used names no folder; Settings reports it.
//
// It is worked out once, by Resolve (or by whoever builds Places by
// hand, such as the UI kit), so that the runtimes, the commands and every
// program of a server agree on where sessions are.
func SessionFolder(agentDir, home string, env Env) string {
	if d := env(SessionEnv); d != "" {
		return d
	}
	loaded := pisettings.Load(agentDir, "", false)
	d := loaded.SessionDir()
	if d == "" {
		return ""
	}
	d = ExpandHome(d, home)
	if !filepath.IsAbs(d) {
		d = filepath.Join(agentDir, d)
	}
	return d
}

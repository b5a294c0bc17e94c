package agent

import "strings"

// CommandRan reports whether a failed bash call's result is the output of
// a command that ran: it ends with the status line either engine's bash
// puts last (pi-tui's "[Exit status 3.]", "[Timed out after …]",
// "[Aborted; …]", "[Killed by signal …]"; pi's "Command exited with code
// 3", "Command timed out after …", "Command aborted", "Command terminated
// without an exit code"). A call that never ran (refused by plan mode,
// denied, blocked by an extension or the bridge, a command that could not
// start) has no output and no status: its text is the reason, first line
// first. The transcript shows a command's output under its line and a
// reason on it (docs/adr/0055).
func CommandRan(result string) bool {
	text := strings.TrimRight(result, "\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	for _, p := range bashStatusPrefixes {
		if strings.HasPrefix(last, p) {
			return true
		}
	}
	return false
}

// bashStatusPrefixes begin the last line of a command's result that ended
// in error: pi-tui's (toolBash) and pi 1.6's (its bash tool's
// appendStatus).
var bashStatusPrefixes = []string{
	"[Exit status ", "[Timed out after ", "[Aborted; ", "[Killed by signal ",
	"Command exited with code ", "Command timed out after ", "Command aborted", "Command terminated without an exit code",
}

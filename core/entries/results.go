package entries

import (
	"fmt"
	"strings"
)

// The texts a tool result carries that say how a call ended, which the
// engines write and the transcript reads back: a session file holds only
// the text, for either engine, so the two must agree here.

// DeniedText is the tool result the model reads for a call of tool the
// user denied, with the reason they gave ("" for a plain no).
func DeniedText(tool, reason string) string {
	if reason = strings.TrimSpace(reason); reason != "" {
		return fmt.Sprintf("The user denied this %s call: %s", tool, reason)
	}
	return fmt.Sprintf("The user denied this %s call. Do not retry it; ask the user or choose another way.", tool)
}

// DeniedReason reads a result of a call of tool back: whether it is the
// text DeniedText gave the model for a call the user denied, and the
// reason the user gave ("" for a plain no). pi stores a blocked call's
// reason as its result, so the transcript tells a denial from a failure
// by it.
func DeniedReason(tool, result string) (reason string, denied bool) {
	rest, ok := strings.CutPrefix(result, "The user denied this "+tool+" call")
	switch {
	case !ok:
		return "", false
	case strings.HasPrefix(rest, ": "):
		return strings.TrimSpace(rest[2:]), true
	}
	return "", strings.HasPrefix(rest, ".")
}

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

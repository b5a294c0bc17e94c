package worktree

import (
	"encoding/json"
	"strings"

	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// maxMessageRunes clips a first message used as a merge's commit message:
// a commit's subject line is read in one glance.
const maxMessageRunes = 60

// MergeMessage is the default commit message of a session's merge, named
// as the session list names the session: its name, else the first line of
// its first message (without the files attached to it), clipped. Only a
// session with neither falls back to its id.
func MergeMessage(s *sessions.Session) string {
	if t := firstTextLine(s.Title()); t != "" {
		return t
	}
	if m := firstTextLine(firstUserText(s.Path())); m != "" {
		return clipRunes(m, maxMessageRunes)
	}
	return "Work of pi-tui session " + s.ID()
}

// firstUserText returns the text the user typed in the first user message
// of path, attached <file> blocks left out.
func firstUserText(path []sessions.Entry) string {
	for _, e := range path {
		if e.Type != sessions.TypeUser {
			continue
		}
		var sm struct {
			Message provider.Message `json:"message"`
		}
		if json.Unmarshal(e.Payload(), &sm) != nil {
			return ""
		}
		var texts []string
		for _, p := range sm.Message.Parts {
			if p.Type == provider.PartText {
				texts = append(texts, p.Text)
			}
		}
		typed, _ := filesearch.SplitAttached(strings.Join(texts, " "))
		return typed
	}
	return ""
}

// firstTextLine is s's first non-blank line, trimmed.
func firstTextLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// clipRunes cuts s to at most n characters, marking the cut with "…".
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

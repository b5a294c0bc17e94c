package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// HintLines lays a hint line out in lines of at most width cells: lead
// (a screen's title, or "") then the hints, two spaces after the lead and
// " · " between hints. A line breaks only between two hints, so each key
// stays beside what it does; a hint (or lead) wider than a whole line
// wraps at its spaces. The keys a screen names are text the user needs:
// they wrap, they are never cut (docs/adr/0053-text-that-fits.md). The
// lines are plain; the caller styles them (the lead is the start of the
// first line).
func HintLines(lead string, hints []string, width int) []string {
	width = max(width, 10)
	var lines []string
	line := lead
	for _, h := range hints {
		if h == "" {
			continue
		}
		sep := " · "
		switch {
		case line == "":
			sep = ""
		case line == lead:
			sep = "  "
		}
		if line == "" || ansi.StringWidth(line+sep+h) <= width {
			line += sep + h
			continue
		}
		lines = append(lines, line)
		line = h
	}
	lines = append(lines, line)
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Wrap(l, width, ""), "\n")...)
	}
	return out
}

// Hint is a binding as a hint line names it: its key and the name its
// help begins with, before a colon or a bracket. "ctrl+k command palette:
// go to a session, project, setting or command" is "ctrl+k command
// palette" under a screen; ? shows the whole help.
func Hint(b key.Binding) string {
	h := b.Help()
	if h.Key == "" {
		return ""
	}
	name := h.Desc
	if i := strings.IndexAny(name, ":("); i > 0 {
		name = strings.TrimSpace(name[:i])
	}
	return h.Key + " " + name
}

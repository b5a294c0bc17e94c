package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

// A screen's keys under it are text the user needs: they wrap, they are
// never cut (docs/adr/0053-text-that-fits.md). A line breaks only between
// two hints, so each key stays beside what it does; a hint wider than a
// whole line wraps at its spaces (Wrap).

// HintList is the help texts of bindings, "key what-it-does" each, for a
// hint line: Hints joins them on one line, JoinHints over as many lines
// as a width needs.
func HintList(bs ...key.Binding) []string {
	out := make([]string, 0, len(bs))
	for _, b := range bs {
		if h := b.Help(); h.Key != "" {
			out = append(out, h.Key+" "+h.Desc)
		}
	}
	return out
}

// JoinHints joins hints with sep into lines of at most width cells.
func JoinHints(hints []string, sep string, width int) string {
	return Wrap(strings.Join(packHints("", hints, sep, width), "\n"), width)
}

// HintLines lays a hint line out in lines of at most width cells: lead
// (a screen's title, or "") then the hints, two spaces after the lead and
// " · " between hints. The lines are plain; the caller styles them (the
// lead is the start of the first line).
func HintLines(lead string, hints []string, width int) []string {
	width = max(width, 10)
	return strings.Split(Wrap(strings.Join(packHints(lead, hints, " · ", width), "\n"), width), "\n")
}

// packHints puts lead and hints on lines of at most width cells where
// they fit, breaking only between two hints; lead and the first hint are
// two spaces apart, hints sep apart. Empty hints are skipped.
func packHints(lead string, hints []string, sep string, width int) []string {
	var lines []string
	line := lead
	for _, h := range hints {
		if h == "" {
			continue
		}
		s := sep
		switch {
		case line == "":
			s = ""
		case line == lead:
			s = "  "
		}
		if line == "" || ansi.StringWidth(line+s+h) <= width {
			line += s + h
			continue
		}
		lines = append(lines, line)
		line = h
	}
	return append(lines, line)
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

package common

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"
)

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

// JoinHints joins hints with sep into lines of at most width cells,
// breaking only between hints, so a key and what it does stay together;
// a hint wider than a whole line wraps inside itself (Wrap). A screen's
// keys under it are a sentence the user needs: they wrap, never cut.
func JoinHints(hints []string, sep string, width int) string {
	var lines []string
	cur := ""
	for _, h := range hints {
		switch {
		case cur == "":
			cur = h
		case ansi.StringWidth(cur+sep+h) <= width:
			cur += sep + h
		default:
			lines = append(lines, cur)
			cur = h
		}
	}
	lines = append(lines, cur)
	return Wrap(strings.Join(lines, "\n"), width)
}

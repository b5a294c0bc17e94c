package projects

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// truncate cuts s to width cells, with an ellipsis when cut.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// cells is how many terminal cells s takes.
func cells(s string) int { return ansi.StringWidth(s) }

// padTo pads s with spaces to width cells, so a selected row is one bar.
func padTo(s string, width int) string {
	w := ansi.StringWidth(s)
	if w >= width {
		return truncate(s, width)
	}
	return s + strings.Repeat(" ", width-w)
}

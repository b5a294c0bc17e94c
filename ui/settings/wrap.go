package settings

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/ui/common"
)

// Settings lines wrap rather than being cut: what a setting says (which
// model runs and why, how to set one up, what a file got wrong) is a
// sentence the user needs whole. The list takes each line's height from
// what it draws.

// labelWidth is the settings' label column; values start after it.
const labelWidth = 22

// settingRow draws a setting: "› " when selected, the label, and the
// value wrapped under itself.
func settingRow(st *common.UI, label, value string, style lipgloss.Style, w int, selected bool) string {
	pad := strings.Repeat(" ", labelWidth)
	head := label + pad[min(len(label), labelWidth):]
	lines := wrapText(value, w-2-labelWidth)
	for i, l := range lines {
		lead := pad
		if i == 0 {
			lead = head
		}
		if selected {
			mark := "  "
			if i == 0 {
				mark = "› "
			}
			lines[i] = st.Selected.Render(mark + lead + l)
		} else {
			lines[i] = "  " + lead + style.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// hanging draws text after first, wrapped at w with rest before each
// further line, in style.
func hanging(style lipgloss.Style, first, rest, text string, w int) string {
	lines := wrapText(text, w-ansi.StringWidth(first))
	for i, l := range lines {
		lead := rest
		if i == 0 {
			lead = first
		}
		lines[i] = lead + style.Render(l)
	}
	return strings.Join(lines, "\n")
}

// readSelected draws a line for reading under the cursor: text after
// first, wrapped as hanging does, with "› " in place of the last two
// spaces before first's words.
func readSelected(st *common.UI, first, text string, w int) string {
	rest := strings.Repeat(" ", ansi.StringWidth(first))
	if n := len(first) - len(strings.TrimLeft(first, " ")); n >= 2 {
		first = first[:n-2] + "› " + first[n:]
	}
	lines := wrapText(text, w-ansi.StringWidth(first))
	for i, l := range lines {
		lead := rest
		if i == 0 {
			lead = first
		}
		lines[i] = st.Selected.Render(lead + l)
	}
	return strings.Join(lines, "\n")
}

// rowPart is a piece of a row that packParts keeps whole when a line
// holds it, and sep what goes before it when it follows another on a
// line.
type rowPart struct{ sep, text string }

// packParts lays parts out in lines: the first at most first cells, the
// others at most rest (never fewer than 16), each part after the one
// before when it fits, else on the next line. A part longer than a whole
// line is wrapped as wrapText wraps.
func packParts(parts []rowPart, first, rest int) []string {
	var lines []string
	cur, curW := "", 0
	width := func() int {
		if len(lines) == 0 {
			return max(first, 16)
		}
		return max(rest, 16)
	}
	for _, p := range parts {
		tw, sw := ansi.StringWidth(p.text), ansi.StringWidth(p.sep)
		if curW > 0 && curW+sw+tw <= width() {
			cur, curW = cur+p.sep+p.text, curW+sw+tw
			continue
		}
		if curW > 0 {
			lines = append(lines, cur)
		}
		wrapped := wrapText(p.text, width())
		lines = append(lines, wrapped[:len(wrapped)-1]...)
		cur = wrapped[len(wrapped)-1]
		curW = ansi.StringWidth(cur)
	}
	return append(lines, cur)
}

// wrapText wraps plain text s as every sentence wraps (common.Wrap: at
// spaces; "pi-coding-agent" is one word; only a word longer than a line
// is broken), into lines of at least 16 cells so a narrow window still
// reads; runs of white space are one space, as in a setting's value.
func wrapText(s string, w int) []string {
	return strings.Split(common.Wrap(strings.Join(strings.Fields(s), " "), max(w, 16)), "\n")
}

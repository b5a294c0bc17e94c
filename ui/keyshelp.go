package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// helpGap is the space between two columns of the help screen.
const helpGap = "   "

// helpLines lays the key groups out for the help screen at width w: each
// group is a column of "key  description" lines, columns stand side by
// side while they fit and the rest go on further rows. Nothing is cut:
// a description too long for its column wraps under itself, so every key
// shows at any width (bubbles' FullHelpView drops the columns that do
// not fit behind a lone "…").
func (m *Model) helpLines(groups [][]key.Binding, w int) []string {
	// Two columns side by side at 80 cells; one per row when narrower.
	colMax := max(min(w, max((w-len(helpGap))/2, 36)), 10)
	var cols [][]string
	for _, g := range groups {
		if c := m.helpColumn(g, colMax); len(c) > 0 {
			cols = append(cols, c)
		}
	}
	var out []string
	for len(cols) > 0 {
		// Take the columns that fit on this row (at least one).
		n, used := 1, blockWidth(cols[0])
		for n < len(cols) && used+len(helpGap)+blockWidth(cols[n]) <= w {
			used += len(helpGap) + blockWidth(cols[n])
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, joinColumns(cols[:n])...)
		cols = cols[n:]
	}
	return out
}

// helpColumn renders one group as lines of at most width cells; keys are
// padded to one width so the descriptions line up.
func (m *Model) helpColumn(g []key.Binding, width int) []string {
	var bs []key.Binding
	keyW := 0
	for _, b := range g {
		if !b.Enabled() || b.Help().Key == "" {
			continue
		}
		bs = append(bs, b)
		keyW = max(keyW, ansi.StringWidth(b.Help().Key))
	}
	keyW = min(keyW, width)
	descW := max(width-keyW-2, 8)
	var lines []string
	for _, b := range bs {
		k := b.Help().Key
		pad := strings.Repeat(" ", max(keyW-ansi.StringWidth(k), 0))
		desc := strings.Split(ansi.Wrap(b.Help().Desc, descW, ""), "\n")
		lines = append(lines, m.st.Key.Render(k)+pad+"  "+m.st.Normal.Render(desc[0]))
		for _, d := range desc[1:] {
			lines = append(lines, strings.Repeat(" ", keyW+2)+m.st.Normal.Render(d))
		}
	}
	return lines
}

func blockWidth(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// joinColumns sets columns side by side, each padded to its own width.
func joinColumns(cols [][]string) []string {
	h := 0
	for _, c := range cols {
		h = max(h, len(c))
	}
	out := make([]string, h)
	for i, c := range cols {
		cw := blockWidth(c)
		for y := range h {
			l := ""
			if y < len(c) {
				l = c[y]
			}
			if i < len(cols)-1 {
				l += strings.Repeat(" ", cw-ansi.StringWidth(l)) + helpGap
			}
			out[y] += l
		}
	}
	for y := range out {
		out[y] = strings.TrimRight(out[y], " ")
	}
	return out
}

// helpPage is the help screen at the current size: the title, a window
// of the key lines starting at m.helpTop (clamped), and a footer that
// says how to scroll when the keys do not fit.
func (m *Model) helpPage() string {
	title, groups := m.helpGroups()
	lines := m.helpLines(groups, m.width)
	room := m.helpRoom(len(lines))
	foot := m.helpFooter(0, 0, len(lines))
	if len(lines) > room {
		top := min(max(m.helpTop, 0), max(len(lines)-room, 0))
		end := min(top+room, len(lines))
		foot = m.helpFooter(top+1, end, len(lines))
		lines = lines[top:end]
	}
	for i, l := range foot {
		foot[i] = m.st.Dim.Render(l)
	}
	return m.st.Title.Render("Keys · "+title) + "\n\n" + strings.Join(lines, "\n") + "\n\n" + strings.Join(foot, "\n")
}

// helpFooter is the help screen's footer: how to close it and, when key
// lines from..to of n show (to > 0), which and how to scroll. It wraps
// between its parts, never cut.
func (m *Model) helpFooter(from, to, n int) []string {
	const closing = "press ? or esc to close"
	parts := []string{closing}
	if to > 0 {
		parts = []string{fmt.Sprintf("lines %d–%d of %d", from, to, n), "↑/↓ pgup/pgdn scroll", closing}
	}
	return common.HintLines("", parts, m.width)
}

// helpRoom is how many of n key lines the help screen shows: what the
// title, two blank lines and the footer leave.
func (m *Model) helpRoom(n int) int {
	room := max(m.bodyHeight()-3-len(m.helpFooter(0, 0, n)), 1)
	if n > room {
		// Scrolling: the footer says where, measured with the widest
		// numbers it can show.
		room = max(m.bodyHeight()-3-len(m.helpFooter(n, n, n)), 1)
	}
	return room
}

// helpKeys are the help screen's own keys: it scrolls as a pager does
// and closes with what opened it (or q).
type helpKeys struct {
	Close key.Binding
	Nav   list.KeyMap
}

func newHelpKeys() helpKeys {
	nav := list.DefaultKeyMap()
	nav.PageUp.SetKeys("pgup", "b")
	nav.PageUp.SetHelp("pgup/b", "page up")
	nav.PageDown.SetKeys("pgdown", " ", "f")
	nav.PageDown.SetHelp("pgdn/space", "page down")
	return helpKeys{Nav: nav,
		Close: key.NewBinding(key.WithKeys("?", "esc", "q"), key.WithHelp("?/esc", "close help"))}
}

// helpKey handles a key while the help screen shows: it closes it or
// scrolls it; any other key does nothing.
func (m *Model) helpKey(msg tea.KeyMsg) {
	k := newHelpKeys()
	if key.Matches(msg, k.Close) {
		m.showHelp = false
		return
	}
	_, groups := m.helpGroups()
	n := len(m.helpLines(groups, m.width))
	room := m.helpRoom(n)
	last := max(n-room, 0)
	top := min(max(m.helpTop, 0), last)
	switch {
	case key.Matches(msg, k.Nav.Up):
		top--
	case key.Matches(msg, k.Nav.Down):
		top++
	case key.Matches(msg, k.Nav.PageUp):
		top -= room
	case key.Matches(msg, k.Nav.PageDown):
		top += room
	case key.Matches(msg, k.Nav.Top):
		top = 0
	case key.Matches(msg, k.Nav.Bottom):
		top = last
	}
	m.helpTop = min(max(top, 0), last)
}

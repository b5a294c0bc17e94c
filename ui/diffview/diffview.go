// Package diffview draws unified diffs the same way wherever pi-tui shows
// one: a worktree's diff (the session list's d), a change of the agent's
// (the Review screen) and the diffs under an expanded tool call in the
// transcript. Lines numbers and colours a diff; Page shows one on a
// scrollable page of its own.
package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/ui/common"
)

// gutter is the width of the line numbers before a line (old, new).
const gutter = "            "

// Lines numbers and colours a unified diff: the old and the new line
// number in the gutter, added lines in the OK style, removed lines in the
// Error style, headers as sections. The text comes from files: control
// characters are shown, never sent. An empty diff gives no lines.
func Lines(ui *common.UI, text string) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var out []string
	oldN, newN := 0, 0
	num := func(n int) string {
		if n <= 0 {
			return "     "
		}
		return fmt.Sprintf("%5d", n)
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		shown := common.VisibleLine(strings.ReplaceAll(l, "\t", "    "))
		switch {
		case strings.HasPrefix(l, "@@"):
			oldN, newN = hunkStart(l)
			out = append(out, ui.Dim.Render(gutter+shown))
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index "):
			out = append(out, ui.Section.Render(gutter+shown))
		case strings.HasPrefix(l, "+"):
			out = append(out, ui.Dim.Render(num(0)+" "+num(newN)+" ")+ui.OK.Render(shown))
			newN++
		case strings.HasPrefix(l, "-"):
			out = append(out, ui.Dim.Render(num(oldN)+" "+num(0)+" ")+ui.Error.Render(shown))
			oldN++
		case strings.HasPrefix(l, " "):
			out = append(out, ui.Dim.Render(num(oldN)+" "+num(newN)+" ")+shown)
			oldN, newN = oldN+1, newN+1
		default:
			// A sentence in place of content (binary, over the bound).
			out = append(out, gutter+shown)
		}
	}
	return out
}

// hunkStart reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStart(l string) (oldN, newN int) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, 0
	}
	at := func(s string) int {
		s, _, _ = strings.Cut(s[1:], ",")
		n, _ := strconv.Atoi(s)
		return n
	}
	return at(f[1]), at(f[2])
}

// Keys are a diff page's keys.
type Keys struct{ Up, Down, PageUp, PageDown, Top, Bottom, Close key.Binding }

// DefaultKeys are a pager's keys.
func DefaultKeys() Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return Keys{
		Up: b("↑/k", "up", "up", "k"), Down: b("↓/j", "down", "down", "j"),
		PageUp: b("pgup", "page up", "pgup", "b"), PageDown: b("pgdn/space", "page down", "pgdown", " "),
		Top: b("g", "top", "g", "home"), Bottom: b("G", "bottom", "G", "end"), Close: b("esc/q", "close", "esc", "q"),
	}
}

// Page shows a diff, scrollable, with line numbers of the old and the new
// file in the gutter.
type Page struct {
	common.PageLayer
	ui    *common.UI
	title string
	lines []string
	vp    viewport.Model
	keys  Keys
	w, h  int
}

// NewPage shows text under title; empty is said when the diff is empty.
func NewPage(ui *common.UI, title, text, empty string) *Page {
	p := &Page{ui: ui, title: title, keys: DefaultKeys(), lines: Lines(ui, text)}
	if len(p.lines) == 0 {
		p.lines = []string{ui.Dim.Render(empty)}
	}
	return p
}

// Update scrolls the page or closes it.
func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		k := p.keys
		switch {
		case key.Matches(km, k.Close):
			return p, p.ui.Close(p)
		case key.Matches(km, k.Up):
			p.vp.ScrollUp(1)
		case key.Matches(km, k.Down):
			p.vp.ScrollDown(1)
		case key.Matches(km, k.PageUp):
			p.vp.PageUp()
		case key.Matches(km, k.PageDown):
			p.vp.PageDown()
		case key.Matches(km, k.Top):
			p.vp.GotoTop()
		case key.Matches(km, k.Bottom):
			p.vp.GotoBottom()
		}
	}
	return p, nil
}

// View draws the title line and the window of the diff.
func (p *Page) View(w, h int) string {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.vp.Width, p.vp.Height = w, max(h-1, 3)
		cut := make([]string, len(p.lines))
		for i, l := range p.lines {
			cut[i] = ansi.Truncate(l, max(w, 20), "…")
		}
		p.vp.SetContent(strings.Join(cut, "\n"))
	}
	head := ansi.Truncate(p.ui.Title.Render(common.VisibleLine(p.title))+p.ui.Dim.Render(fmt.Sprintf("  %s · esc closes", common.Plural(len(p.lines), "line"))), max(w, 20), "…")
	return head + "\n" + p.vp.View()
}

// Title names the page in the header.
func (p *Page) Title() string { return p.title }

// Help lists the page's keys.
func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Close}}
}

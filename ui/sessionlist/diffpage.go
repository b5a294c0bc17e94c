package sessionlist

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

// diffPage shows a worktree's diff, scrollable, with line numbers of the
// old and the new file in the gutter.
type diffPage struct {
	common.PageLayer
	ui     *common.UI
	branch string
	lines  []string
	vp     viewport.Model
	keys   diffKeys
	w, h   int
}

type diffKeys struct{ Up, Down, PageUp, PageDown, Top, Bottom, Close key.Binding }

func newDiffPage(ui *common.UI, branch, text string) *diffPage {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	p := &diffPage{ui: ui, branch: branch, keys: diffKeys{
		Up: b("↑/k", "up", "up", "k"), Down: b("↓/j", "down", "down", "j"),
		PageUp: b("pgup", "page up", "pgup", "b"), PageDown: b("pgdn/space", "page down", "pgdown", " "),
		Top: b("g", "top", "g", "home"), Bottom: b("G", "bottom", "G", "end"), Close: b("esc/q", "close", "esc", "q"),
	}}
	p.lines = renderDiff(ui, text)
	return p
}

// renderDiff numbers and colours a unified diff. The text comes from the
// repository: its control characters are shown, never sent.
func renderDiff(ui *common.UI, text string) []string {
	if strings.TrimSpace(text) == "" {
		return []string{ui.Dim.Render("No changes against the base yet.")}
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
			out = append(out, ui.Dim.Render("            "+shown))
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index "):
			out = append(out, ui.Section.Render("            "+shown))
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
			out = append(out, "            "+shown)
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

func (p *diffPage) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
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

func (p *diffPage) View(w, h int) string {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.vp.Width, p.vp.Height = w, max(h-1, 3)
		cut := make([]string, len(p.lines))
		for i, l := range p.lines {
			cut[i] = ansi.Truncate(l, max(w, 20), "…")
		}
		p.vp.SetContent(strings.Join(cut, "\n"))
	}
	return p.ui.Title.Render("Diff · "+p.branch) + p.ui.Dim.Render(fmt.Sprintf("  %s · esc closes", common.Plural(len(p.lines), "line"))) + "\n" + p.vp.View()
}

func (p *diffPage) Title() string { return "Diff · " + p.branch }
func (p *diffPage) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Close}}
}

// NewDiffPage shows a unified diff (a change the agent made, say) in the
// same scrollable page as a worktree's: "Diff · name".
func NewDiffPage(ui *common.UI, name, text string) common.Layer { return newDiffPage(ui, name, text) }

// Package inspector is the context page (/context): the system prompt's
// sections and sizes exactly as the model is sent them (on the pi engine,
// as pi reported it sent them, with the tools; pi.go), and the whole
// prompt on demand. The chat stacks it over itself as a layer.
package inspector

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Page shows the system prompt's sections and sizes exactly as sent.
type Page struct {
	common.PageLayer
	ui   *common.UI
	keys inspectorKeys
	in   runtimes.Inspection
	vp   viewport.Model
	full bool
	w, h int
}

// inspectorKeys are the context page's keys (the viewport scrolls with
// its own: ↑/↓, pgup/pgdn).
type inspectorKeys struct{ Whole, Close key.Binding }

// New shows the inspection in.
func New(ui *common.UI, in runtimes.Inspection) *Page {
	return &Page{ui: ui, in: in, keys: inspectorKeys{
		Whole: key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "whole prompt")),
		Close: key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}}
}

// content is the text shown; the system prompt holds instruction files
// and memory, so its controls are made visible.
func (p *Page) content() string {
	if p.full {
		return strings.ReplaceAll(common.Visible(p.in.System+p.toolsText()), "\t", "    ")
	}
	s := p.in.Sections
	var b strings.Builder
	fmt.Fprintf(&b, "System prompt for %s: %s%s\n", p.in.Model, common.Plural(len(p.in.System), "byte"), p.sentText())
	if p.in.Root != p.in.ProjectRoot {
		fmt.Fprintf(&b, "Instructions from the session's worktree %s (memory and trust: the project's)\n", common.VisibleLine(p.in.Root))
	} else {
		fmt.Fprintf(&b, "Instructions from the project root %s\n", common.VisibleLine(p.in.Root))
	}
	b.WriteString("\n")
	// Every count with its digits grouped, as the first line's and every
	// other screen's; the numbers right-aligned so they compare.
	row := func(name string, n int) { fmt.Fprintf(&b, "  %-24s %7s %s\n", name, common.Group(n), bytesUnit(n)) }
	sources := func() {
		for _, src := range p.in.Sources {
			cut := ""
			if src.Truncated {
				cut = " (cut from " + common.Group(src.Bytes) + ")"
			}
			fmt.Fprintf(&b, "    %-22s %7s %s%s\n", common.VisibleLine(src.Label), common.Group(src.Shown), bytesUnit(src.Shown), cut)
		}
	}
	if pc := p.in.Pi; pc != nil {
		// pi's prompt is pi's: pi-tui knows its own sections and what pi
		// reported of the rest.
		if pc.Known {
			row("pi's own prompt", len(pc.Own))
		}
		row("pi-tui's sections", len(pc.Added))
		sources()
		b.WriteString("\n" + p.toolsLine(pc))
		for _, pr := range p.in.Problems {
			b.WriteString("\n" + p.ui.Warn.Render("! "+common.VisibleLine(pr)))
		}
		b.WriteString("\n" + p.keys.Whole.Help().Key + " shows the whole prompt and the tools · " + p.keys.Close.Help().Key + " closes")
		return b.String()
	}
	row("base", len(s.Base))
	row("project instructions", len(s.Instructions))
	sources()
	row("project memory", len(s.Memory))
	row("skills", len(s.Skills))
	if s.Folders != "" {
		row("project folders", len(s.Folders)) // a project of several folders (ADR 0085)
	}
	row("environment", len(s.Environment))
	if p.in.Plan != "" {
		row("plan mode", len(p.in.Plan)) // the section plan mode adds last
	}
	for _, pr := range p.in.Problems {
		b.WriteString("\n" + p.ui.Warn.Render("! "+common.VisibleLine(pr)))
	}
	b.WriteString("\n" + p.keys.Whole.Help().Key + " shows the whole prompt · " + p.keys.Close.Help().Key + " closes")
	return b.String()
}

// bytesUnit is "byte" for one and "bytes" for any other count.
func bytesUnit(n int) string {
	if n == 1 {
		return "byte"
	}
	return "bytes"
}

func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, p.keys.Close):
			return p, p.ui.Close(p)
		case key.Matches(km, p.keys.Whole):
			p.full = !p.full
			p.vp.SetContent(ansi.Wrap(p.content(), max(p.w, 20), ""))
			p.vp.GotoTop()
			return p, nil
		}
	}
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(msg)
	return p, cmd
}

func (p *Page) View(w, h int) string {
	if w != p.w || h != p.h {
		p.w, p.h = w, h
		p.vp.Width, p.vp.Height = w, max(h-1, 3)
		p.vp.SetContent(ansi.Wrap(p.content(), max(w, 20), ""))
	}
	return p.ui.Title.Render("Context · what the model is sent") + "\n" + p.vp.View()
}

func (p *Page) Title() string { return "Context" }
func (p *Page) Help() [][]key.Binding {
	return [][]key.Binding{{p.keys.Whole, p.keys.Close}}
}

package providersview

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/providers"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// The MCP servers part of the page: pi's servers as `pi mcp list --json`
// reports them from the project's folder (the global ones, and the
// project's .pi/mcp.json when pi trusts the project), and adding and
// removing one through `pi mcp add|remove` (ADR 0088).

// Project is the project whose .pi/mcp.json the page lists and adds to.
type Project struct {
	Name string
	Root string
	// Trusted is the project's trust (pi's trust.json, which pi-tui
	// keeps): pi reads a project's .pi/mcp.json only for a trusted one.
	Trusted bool
}

// file is the project's MCP file.
func (pr Project) file() string { return filepath.Join(pr.Root, ".pi", "mcp.json") }

// extensionNote says why a provider a pi extension registers may be
// missing: pi 1.6's auth commands load no extensions, so it shows only
// once pi lists its models, which needs a credential (ADR 0088).
const extensionNote = "A provider a pi extension registers shows here once it has a credential " +
	"(pi's auth commands load no extensions): log in to it with /login in pi, or pi-tui login NAME."

// mcpPi is pi for the MCP commands: run in the project's folder, where pi
// reads the project's .pi/mcp.json when the project is trusted (and says
// it ignored it when not), so the page lists what a session there gets.
// Without a project it runs in the agent dir: the global servers alone.
func (p *Page) mcpPi() *providers.Pi {
	if p.pi == nil {
		return nil
	}
	pi := *p.pi
	if pr := p.d.Project; pr != nil {
		pi.Dir = pr.Root
	}
	return &pi
}

// mcpLines adds the MCP section to lines: its heading, pi's answer and a
// row per server (rows number from first); at is the line of the row
// under the cursor, -1 when the cursor is not on a server.
func (p *Page) mcpLines(lines []string, first, width int) (out []string, at int) {
	st := p.d.UI
	at = -1
	title := "MCP servers (pi's, global)"
	if pr := p.d.Project; pr != nil && pr.Trusted {
		title = fmt.Sprintf("MCP servers (pi's: global, and %s's .pi/mcp.json)", common.VisibleLine(pr.Name))
	}
	lines = append(lines, "", st.Section.Render(fit(title, width)))
	switch {
	case p.mcpErr != "":
		lines = append(lines, st.Error.Render(fit(p.mcpErr, width)))
	case p.mcpDone && len(p.mcp.Servers) == 0:
		lines = append(lines, st.Dim.Render(fit("none: m adds one (a command or a URL)", width)))
	}
	for i, s := range p.mcp.Servers {
		if first+i == p.cursor {
			at = len(lines)
		}
		lines = append(lines, p.serverLine(s, first+i == p.cursor, width))
	}
	if note := p.untrustedNote(); note != "" {
		lines = append(lines, wrapped(st.Warn.Render, note, width)...)
	}
	for _, e := range p.mcp.Errors {
		lines = append(lines, st.Error.Render(fit(common.VisibleLine(e), width)))
	}
	return lines, at
}

// untrustedNote says why the project's servers are not listed: pi
// ignored its .pi/mcp.json (the project is not trusted), in pi-tui's
// words when pi-tui's trust says the same, else in pi's.
func (p *Page) untrustedNote() string {
	if p.mcp.Note == "" {
		return ""
	}
	if pr := p.d.Project; pr != nil && !pr.Trusted {
		return fmt.Sprintf("%s's %s is not loaded: the project is not trusted, so pi ignores its MCP servers (press t in Projects to trust it)",
			common.VisibleLine(pr.Name), dialog.Tilde(pr.file(), p.d.UI.Home))
	}
	return common.VisibleLine(p.mcp.Note)
}

// wrapped lays a sentence out in lines of width cells, each styled.
func wrapped(style func(...string) string, text string, width int) []string {
	var out []string
	for _, l := range strings.Split(common.Wrap(text, max(width, 10)), "\n") {
		out = append(out, style(l))
	}
	return out
}

// addMCP opens the form that adds a server with `pi mcp add`.
func (p *Page) addMCP() tea.Cmd {
	if p.pi == nil {
		return common.Failure(fmt.Errorf("MCP servers are pi's, and pi is not usable: %s", p.st.PiProblem))
	}
	return p.d.UI.Push(newMCPForm(p.d.UI, p.mcpPi(), p.d.Project, p.mcp.Servers))
}

// removeMCP asks, then removes the server under the cursor from the
// mcp.json that defines it with `pi mcp remove` (--local for a project's).
func (p *Page) removeMCP() tea.Cmd {
	r, ok := p.selected()
	if !ok || r.server == nil {
		return common.Notice("D removes an MCP server: move to one first")
	}
	s := *r.server
	name := common.VisibleLine(s.Name)
	body := fmt.Sprintf("pi removes %s from %s; a running session drops it on /reload. A sign-in pi stored for it is kept (o signs out).",
		name, common.VisibleLine(s.Source))
	pi, ctx, args := p.mcpPi(), p.d.UI.Ctx, p.mcpArgs("remove", s)
	return p.d.UI.Push(dialog.NewConfirm(p.d.UI, "Remove MCP server "+name, body, func() tea.Cmd {
		p.busy = "removing " + name + " (pi mcp remove)…"
		return func() tea.Msg {
			out, err := pi.RunMCP(ctx, args...)
			return doneMsg{notice: firstLine(out), err: err}
		}
	}))
}

// firstLine is the first line of what pi said ("Removed global MCP
// server …"); its advice below it is for a shell.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return common.VisibleLine(line)
}

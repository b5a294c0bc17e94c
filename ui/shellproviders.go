package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/ui/providersview"
)

// openProviders pushes the Providers screen (from Settings' p and the
// command palette): pi's logins run in this program's terminal through
// the program's Exec, so over SSH the client's terminal gets them. The
// project the screen is about (currentProject) brings its .pi/mcp.json;
// the screen finds pi as the host's engine that keeps the logins does.
func (m *Model) openProviders() tea.Cmd {
	d := providersview.Deps{
		UI:       m.st,
		AgentDir: m.opts.Host.Places.AgentDir,
		Env:      m.opts.Env,
		Exec:     m.opts.Exec,
	}
	if p, ok := m.currentProject(); ok && !p.Missing {
		d.Project = &providersview.Project{Name: p.Name, Root: p.Root, Trusted: p.Trusted}
	}
	if m.opts.Host.Engines != nil {
		if e, ok := m.opts.Host.Engines.First(func(c engine.Capabilities) bool { return c.Logins }); ok {
			d.Locate = e.Locate
		}
	}
	return m.st.Push(providersview.New(d))
}

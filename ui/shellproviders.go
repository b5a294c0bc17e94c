package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/providersview"
)

// openProviders pushes the Providers screen (from Settings' p and the
// command palette): pi's logins run in this program's terminal through
// the program's Exec, so over SSH the client's terminal gets them. The
// project the screen is about (currentProject) brings its .pi/mcp.json.
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
	return m.st.Push(providersview.New(d))
}

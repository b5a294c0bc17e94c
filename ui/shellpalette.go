package ui

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/palette"
	"github.com/pi-tui/pi-tui/ui/projects"
	"github.com/pi-tui/pi-tui/ui/settings"
)

// The command palette's hooks in the shell (docs/adr/0057-command-palette.md):
// the key that opens it, what it offers besides projects and sessions
// (the commands and settings of the moment) and where its entries lead.

// paletteKey opens the palette for ctrl+k, or ctrl+g, and reports whether
// it did. It opens over the tabs only: a page or dialog is finished or
// closed first, since the palette's destinations are tabs, which the
// layers would still cover; pressed over one, the key says so rather than
// doing nothing. In a text field, where ctrl+k deletes to the line end
// (as in pi and readline), only ctrl+g opens it.
func (m *Model) paletteKey(msg tea.KeyMsg, f focus) (tea.Cmd, bool) {
	typing := f == focusProjectsFilter || f == focusSessionText || f == focusLayerText
	if !key.Matches(msg, m.keys.PaletteTyping) && (typing || !key.Matches(msg, m.keys.Palette)) {
		return nil, false
	}
	if n := len(m.stack); n > 0 {
		top := m.stack[n-1]
		if _, open := top.(*palette.Model); open {
			return nil, false // open already: the key is the query's
		}
		if top.FullScreen() {
			m.notice = "close this page first (esc) to open the palette"
		} else {
			// Not "esc": in an approval esc denies.
			m.notice = "answer or close this dialog first to open the palette"
		}
		return nil, true
	}
	return m.openPalette(), true
}

// openPalette opens the command palette over the tab. It reads the
// projects and every project's sessions through the services, in
// commands, once it is open.
func (m *Model) openPalette() tea.Cmd {
	h := m.opts.Host
	p := palette.New(palette.Deps{
		UI:          m.st,
		Home:        h.Places.Home,
		Projects:    func(ctx context.Context) ([]registry.Project, error) { return h.Projects.List(ctx, true) },
		Sessions:    h.Sessions.ListAll,
		OpenProject: m.paletteProject,
		OpenSession: m.paletteSession,
	}, m.paletteItems())
	return m.st.Push(p)
}

// paletteItems are the commands and settings the palette offers now: the
// open session's slash commands, the screens' actions (those on a
// project act on the current one) and every setting.
func (m *Model) paletteItems() []palette.Item {
	var items []palette.Item
	command := func(title, detail string, run func() tea.Cmd) {
		items = append(items, palette.Item{Kind: palette.KindCommand, Title: title, Detail: detail, Run: run})
	}
	chat := m.session.chat
	for _, c := range chat.Commands() {
		name := c.Name
		command("/"+name, c.Description, func() tea.Cmd {
			m.tab = tabSession
			return chat.RunCommand(name)
		})
	}
	command("Import sessions", "from Claude Code, Codex and opencode, into the projects", m.session.chat.ImportSessions)
	command("Add project…", "a folder, its name and trust", func() tea.Cmd {
		m.tab = tabProjects
		return m.st.Push(m.projects.AddDialog("", nil))
	})
	for t := tab(0); t < tabCount; t++ {
		command("Go to "+t.String(), fmt.Sprintf("tab %d", t+1), func() tea.Cmd {
			m.tab = t
			return nil
		})
	}
	home := m.opts.Host.Places.Home
	command("Edit global AGENTS.md", paths.Tilde(filepath.Join(m.opts.Host.Places.AgentDir, "AGENTS.md"), home), m.editGlobal)
	items[len(items)-1].Path = true // shortened in its middle on a narrow row
	if p, ok := m.currentProject(); ok {
		if !p.Missing {
			command("New session", p.Name, func() tea.Cmd { return m.session.openThen(p, m.session.chat.New) })
			command("New session in a worktree", p.Name, func() tea.Cmd { return m.session.openThen(p, m.session.chat.NewInWorktree) })
			command("Edit AGENTS.md", p.Name, func() tea.Cmd { return m.editAgents(p, p.Root) })
			for _, f := range p.Folders {
				if !f.Primary && !f.Missing { // each folder has its own (ADR 0085)
					command("Edit AGENTS.md", p.Name+" · folder "+f.Name, func() tea.Cmd { return m.editAgents(p, f.Path) })
				}
			}
			command("Show instructions", p.Name, func() tea.Cmd { return m.showInstructions(p) })
		}
		command("Edit memory", p.Name, func() tea.Cmd { return m.editMemory(p) })
	}
	command("Providers", "log in, add an endpoint, MCP servers", m.openProviders)
	command("Keys of this screen", "help", func() tea.Cmd {
		m.showHelp, m.helpTop = true, 0
		return nil
	})
	command("Quit pi-tui", "", m.quit)
	for i, name := range settings.Names() {
		items = append(items, palette.Item{Kind: palette.KindSetting, Title: name, Detail: "Settings", Run: func() tea.Cmd {
			m.tab = tabSettings // the tab reads its files again as it is shown (route)
			m.settings.Focus(i)
			return nil
		}})
	}
	return items
}

// currentProject is the project the screen is about: the one selected on
// Projects there, the Session tab's elsewhere (else the selected one).
func (m *Model) currentProject() (registry.Project, bool) {
	if m.tab != tabProjects {
		if p, ok := m.session.chat.Project(); ok {
			return p, true
		}
	}
	return m.projects.Selected()
}

// paletteProject opens a project's sessions, as o on its row does, and
// selects it on Projects; a project whose folder is gone is selected on
// Projects, where L relocates it.
func (m *Model) paletteProject(p registry.Project) tea.Cmd {
	selectIt := func() tea.Msg { return projects.SelectMsg{ID: p.ID} }
	if p.Missing {
		m.tab = tabProjects
		return selectIt
	}
	return tea.Batch(m.openSession(p), m.markOpened(p), selectIt)
}

// paletteSession opens session s of project p in the Session tab (it is
// only shown when it is the open one).
func (m *Model) paletteSession(p registry.Project, s sessions.Summary) tea.Cmd {
	m.tab = tabSession
	if m.session.chat.SessionID() == s.ID {
		return nil
	}
	selectIt := func() tea.Msg { return projects.SelectMsg{ID: p.ID} }
	return tea.Batch(m.session.openThen(p, func() tea.Cmd { return m.session.chat.Open(s.ID) }), m.markOpened(p), selectIt)
}

// openThen shows project p's sessions, leaving the open session (refused
// while the agent works in it), then does then (opens or starts a
// session in p).
func (t *sessionTab) openThen(p registry.Project, then func() tea.Cmd) tea.Cmd {
	if err := t.chat.SetProject(p); err != nil {
		return common.Failure(err)
	}
	t.focus = onSessionList
	return tea.Batch(t.list.Open(p), then())
}

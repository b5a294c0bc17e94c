package chat

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/skills"
)

// What the command palette (ui/palette) needs of the chat: the open
// session and project, the slash commands it would offer after "/", and
// running one of them without touching what is typed in the input.

// SessionID is the open session's id ("" when none is open).
func (m *Model) SessionID() string { return m.sid }

// Project is the project whose sessions the tab shows, if any.
func (m *Model) Project() (registry.Project, bool) {
	if m.project == nil {
		return registry.Project{}, false
	}
	return *m.project, true
}

// Commands are the slash commands "/" would offer now: the chat's own,
// then the session's skills and prompt templates. None while no session
// is open, where none of them could run.
func (m *Model) Commands() []skills.Command {
	if m.sid == "" {
		return nil
	}
	return m.in.menuCommands()
}

// RunCommand runs /name as if it were typed and sent, and leaves the
// input as it is: the chat's own commands all run without an argument (a
// name, a level, a model are then asked for). A skill or prompt template
// takes the text after it, so it is put in the input instead, before
// what is typed there (one edit: ctrl+z takes it back), to finish and
// send.
func (m *Model) RunCommand(name string) tea.Cmd {
	if m.sid == "" {
		return nil
	}
	if isBuiltin(name) {
		return m.command("/" + name)
	}
	m.in.set("/" + name + " " + m.in.input.Value())
	return nil
}

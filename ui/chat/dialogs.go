package chat

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
)

// An extension's questions (select, confirm, input, editor) arrive as
// questions of the session (events.Asked with a Dialog) and open a
// dialog of their own (ui/extdialog), under the approvals' rule; how each
// ended, when not by an answer here, is said in the notices area.

// askDialog opens the dialog of an extension's question of the open
// session.
func (m *Model) askDialog(a events.Asked) tea.Cmd {
	cmd, refused := m.dialogs.Show(a)
	if refused != "" {
		m.ext.notify("warning", "pi-tui", refused)
	}
	return cmd
}

// dialogGone closes the dialog of a question that ended elsewhere.
func (m *Model) dialogGone(r events.Resolved) {
	if text := m.dialogs.Gone(r); text != "" {
		m.ext.notify("info", "pi-tui", text)
	}
}

package projects

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/common"
)

// AddDialog returns the dialog that adds a project, with path filled in:
// `pi-tui PATH` on a folder that no project holds offers to add it. Name
// and trust are asked in it as usual; nothing is added unless confirmed.
// then runs with the project's id once it is added (or relocated to the
// folder), so the program can go on to it as for a registered PATH; nil
// stays on Projects.
func (m *Model) AddDialog(path string, then func(id string) tea.Cmd) common.Layer {
	d := newAddDialog(m.host, m.st)
	d.path.Input.SetValue(path)
	d.path.Input.CursorEnd()
	d.then = then
	return d
}

package projects

import "github.com/pi-tui/pi-tui/ui/common"

// AddDialog returns the dialog that adds a project, with path filled in:
// `pi-tui PATH` on a folder that no project holds offers to add it. Name
// and trust are asked in it as usual; nothing is added unless confirmed.
func (m *Model) AddDialog(path string) common.Layer {
	d := newAddDialog(m.host, m.st, m.env)
	d.path.input.SetValue(path)
	d.path.input.CursorEnd()
	return d
}

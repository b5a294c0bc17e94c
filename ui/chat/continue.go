package chat

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/projects"
)

// Continue shows project p's sessions and reopens the latest one, as
// `pi -c` does (`pi-tui -c`); a project without sessions shows its empty
// list.
func (m *Model) Continue(p projects.Project) tea.Cmd {
	list := m.Open(p)
	sm := m.d.Runtimes.Sessions()
	open := m.openSession
	return tea.Batch(list, func() tea.Msg {
		sum, ok, err := sm.Latest(context.Background(), p.ID)
		if err != nil {
			return openedMsg{err: err}
		}
		if !ok {
			return nil
		}
		return open(sum.ID)()
	})
}

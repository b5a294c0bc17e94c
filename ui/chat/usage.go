package chat

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/runtimes"
)

// usageMsg is the open session's token use, read in a command.
type usageMsg struct {
	sid string
	u   runtimes.SessionUsage
}

// loadUsage reads the session's token use (its totals and the context
// window's use, as pi's footer counts them) for the line above the input;
// a session that cannot be read keeps what the line showed.
func (m *Model) loadUsage() tea.Cmd {
	if m.sid == "" {
		return nil
	}
	rts, sid, ctx := m.d.Runtime, m.sid, m.ctx
	return func() tea.Msg {
		u, err := rts.Usage(ctx, sid)
		if err != nil {
			return nil
		}
		return usageMsg{sid: sid, u: u}
	}
}

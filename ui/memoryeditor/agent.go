package memoryeditor

import (
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/common"
)

// The agent-writes switch of the project whose memory is open (ADR 0022):
// shown next to the meter, toggled with w. The page knows the project by
// its root, so it looks the project up to reach its id and trust.

type agentState struct {
	known     bool
	projectID string
	on        bool
	trusted   bool
}

// meter is the switch's part of the meter line.
func (a agentState) meter() string {
	switch {
	case !a.known:
		return ""
	case a.on && !a.trusted:
		return " · agent writes: on (no effect: the project is not trusted)"
	case a.on:
		return " · agent writes: on"
	}
	return " · agent writes: off"
}

type agentMsg struct {
	page    *Page
	state   agentState
	err     error
	changed bool
}

// loadAgent reads the switch.
func (p *Page) loadAgent() tea.Cmd {
	h, root, ctx := p.host, p.root, p.st.Ctx
	return func() tea.Msg {
		pr, err := h.Projects.Find(ctx, root)
		if err != nil {
			return agentMsg{page: p, err: err}
		}
		on, err := h.Memory.AgentWrites(ctx, pr.ID)
		return agentMsg{page: p, state: agentState{known: err == nil, projectID: pr.ID, on: on, trusted: pr.Trusted}, err: err}
	}
}

// toggleAgent flips the switch and reads it back.
func (p *Page) toggleAgent() tea.Cmd {
	if !p.agent.known {
		return common.Failure(errors.New("the agent-writes switch is not loaded yet"))
	}
	h, st, ctx := p.host, p.agent, p.st.Ctx
	return func() tea.Msg {
		if err := h.Memory.SetAgentWrites(ctx, st.projectID, !st.on); err != nil {
			return agentMsg{page: p, state: st, err: err}
		}
		on, err := h.Memory.AgentWrites(ctx, st.projectID)
		st.on = on
		return agentMsg{page: p, state: st, err: err, changed: true}
	}
}

func (p *Page) updateAgent(msg agentMsg) tea.Cmd {
	if msg.err != nil {
		if msg.changed || p.agent.known {
			return common.Failure(msg.err)
		}
		return nil // a page opened on a root no project holds: no switch
	}
	p.agent = msg.state
	if !msg.changed {
		return nil
	}
	switch {
	case msg.state.on && !msg.state.trusted:
		return common.Notice("agent writes on for %s, but it is not trusted: its agent gets no remember tool until you trust it", p.label)
	case msg.state.on:
		return common.Notice("agent writes on: the agent of %s may change this memory; each change shows in its session, /undo-memory undoes it", p.label)
	}
	return common.Notice("agent writes off: the agent of %s can no longer change this memory", p.label)
}

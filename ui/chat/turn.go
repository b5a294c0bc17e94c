package chat

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/runtimes"
)

// A turn of this program's, from the moment it asks to the event that
// says it ended (ADR 0084): a prompt ends with its agent_end and a
// /compact with its compaction_end, which the core sends for every one,
// failures included. The command that ran the call returns only what no
// event carries: a message refused before it was saved, which goes back
// to the input (unsentMsg).

// turn is what this program runs on the open session.
type turn uint8

const (
	turnNone turn = iota
	// turnAttaching: the files a message names with @ are being
	// attached; its prompt follows.
	turnAttaching
	turnPrompt  // a prompt: its agent_end ends it
	turnCompact // /compact: its compaction_end ends it
)

// inTurn reports whether this program runs something on the session: a
// message typed meanwhile waits its turn.
func (m *Model) inTurn() bool { return m.turn != turnNone }

// unsentMsg is a message refused before it was saved (no model, a
// missing worktree): it goes back to the input, and out of the
// transcript. Its agent_end says why.
type unsentMsg struct{ id, text string }

// call runs fn off the update loop once this program's previous call on
// a runtime has returned. A turn ends with its event a moment before its
// call returns (the runtime settles after it), and the next queued
// message, sent at that event, must find the runtime free.
func (m *Model) call(fn func() tea.Msg) tea.Cmd {
	prev, done, ctx := m.lastCall, make(chan struct{}), m.ctx
	m.lastCall = done
	return func() tea.Msg {
		defer close(done)
		if prev != nil {
			select {
			case <-prev:
			case <-ctx.Done():
				return nil
			}
		}
		return fn()
	}
}

// turnEnded ends this program's turn: the next queued message goes, and
// the session list reloads (the session's count and date moved).
func (m *Model) turnEnded() tea.Cmd {
	m.turn = turnNone
	var next tea.Cmd
	if len(m.queue) > 0 {
		text := m.queue[0]
		m.queue = m.queue[1:]
		next = m.sendWithFiles(text)
	}
	return tea.Batch(next, m.tab.List.Reload())
}

// agentBusy says the session's agent is working, this program's turn or
// another's: its turn changes files, so an undo waits for it.
func (m *Model) agentBusy() bool {
	return m.inTurn() || m.rt.state == runtimes.StateWorking || (m.sid != "" && m.d.Runtime.State(m.sid).Runtime == runtimes.StateWorking)
}

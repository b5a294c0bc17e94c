package chat

import (
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

// /undo-memory (ADR 0022) undoes the session's latest memory change that
// is not undone yet, compare-and-swap, and only while the entry is still
// as the agent left it; the transcript shows each change and its undo.

type undoneMsg struct {
	sid, callID string
	summary     string
	err         error // nothing was undone
	unrecorded  error // undone, but the session file does not say so
}

// undoMemory undoes the latest change of this session not undone yet.
func (m *Model) undoMemory() tea.Cmd {
	callID, ch, ok := m.tr.LastChange()
	if !ok {
		return common.Failure(errors.New("the agent has made no memory change in this session that is not undone"))
	}
	svc, ss, sid, ctx := m.d.Host.Memory, m.d.Sessions, m.sid, m.ctx
	return func() tea.Msg {
		done := undoneMsg{sid: sid, callID: callID, summary: ch.Summary()}
		if _, done.err = svc.Undo(ctx, ch); done.err != nil {
			return done
		}
		// The session remembers the undo, for when it is reopened; the
		// memory is already restored if this record cannot be written.
		s, err := ss.Open(ctx, sid)
		if err == nil {
			_, err = s.Append(ctx, sessions.TypeCustom, entries.MemoryUndoneRecord{Kind: entries.CustomMemoryUndone, ToolCallID: callID})
		}
		if err != nil {
			done.unrecorded = fmt.Errorf("the memory change was undone, but the session could not record it: %w", err)
		}
		return done
	}
}

// updateRemember handles the messages of this file.
func (m *Model) updateRemember(msg tea.Msg) (tea.Cmd, bool) {
	done, ok := msg.(undoneMsg)
	if !ok {
		return nil, false
	}
	if done.err != nil {
		return common.Failure(done.err), true
	}
	if done.sid == m.sid {
		m.tr.MarkUndone(done.callID)
	}
	if done.unrecorded != nil {
		return common.Failure(done.unrecorded), true
	}
	return common.Notice("undone: %s", done.summary), true
}

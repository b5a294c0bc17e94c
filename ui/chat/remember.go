package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/memory"
	coresession "github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The agent's memory changes in the transcript (ADR 0022): a remember
// call's line is followed by what it changed, and /undo-memory undoes the
// session's latest change that is not undone yet, compare-and-swap, and
// only while the entry is still as the agent left it.

// linkChanges gives stored remember results their change records, and
// marks those the user undid, so a reopened session shows its changes and
// can undo them.
func linkChanges(entries []coresession.Entry, items []*item) {
	var changes map[string]agent.MemoryChangeRecord
	undone := map[string]bool{}
	for i := range entries {
		if entries[i].Type != coresession.TypeCustom || !strings.Contains(string(entries[i].Payload()), agent.CustomMemoryChange) {
			continue
		}
		var r agent.MemoryChangeRecord
		if json.Unmarshal(entries[i].Payload(), &r) != nil {
			continue
		}
		switch r.Kind {
		case agent.CustomMemoryChange:
			if changes == nil {
				changes = map[string]agent.MemoryChangeRecord{}
			}
			changes[r.ToolResultID] = r
		case agent.CustomMemoryUndone:
			undone[r.ToolCallID] = true
		}
	}
	for _, it := range items {
		if it.kind != kindTool || it.entry == nil {
			continue
		}
		if r, ok := changes[it.entry.ID]; ok {
			it.change, it.callID, it.undone = &r.Change, r.ToolCallID, undone[r.ToolCallID]
		}
	}
}

// changeLines draws a change under its tool line: what it did, the text
// it wrote or took away (a few lines, controls shown), and how to undo it.
func (it *item) changeLines(st *common.UI, width int) string {
	c := it.change
	if c == nil {
		return ""
	}
	w := max(width-6, 10)
	var b strings.Builder
	line := "memory: " + c.Summary()
	if it.undone {
		line += " · undone"
	} else {
		line += " · /undo-memory undoes it"
	}
	b.WriteString("\n" + st.Dim.Render(indent(indent(ansi.Wrap(common.VisibleLine(line), w, "")))))
	text := func(sign string, e *memory.Entry) {
		if e == nil {
			return
		}
		lines := strings.Split(e.Content, "\n")
		if e.Title != "" {
			lines = append([]string{"## " + e.Title}, lines...)
		}
		for i, l := range lines {
			if i == 3 {
				b.WriteString("\n" + st.Dim.Render(indent(indent(sign+" …"))))
				break
			}
			b.WriteString("\n" + st.Dim.Render(indent(indent(sign+" "+ansi.Truncate(common.VisibleLine(l), w-2, "…")))))
		}
	}
	if c.Action != memory.ActionAdd {
		text("-", c.Before)
	}
	if c.Action != memory.ActionRemove {
		text("+", c.After)
	}
	return b.String()
}

type undoneMsg struct {
	sid, callID string
	summary     string
	err         error // nothing was undone
	unrecorded  error // undone, but the session file does not say so
}

// undoMemory undoes the latest change of this session not undone yet.
func (m *Model) undoMemory() tea.Cmd {
	var it *item
	for i := len(m.items) - 1; i >= 0; i-- {
		if m.items[i].change != nil && !m.items[i].undone {
			it = m.items[i]
			break
		}
	}
	if it == nil {
		return common.Failure(errors.New("the agent has made no memory change in this session that is not undone"))
	}
	svc, rts, sid, callID, ch := m.d.Host.Memory, m.d.Runtimes, m.sid, it.callID, *it.change
	return func() tea.Msg {
		ctx := context.Background()
		done := undoneMsg{sid: sid, callID: callID, summary: ch.Summary()}
		if _, done.err = svc.Undo(ctx, ch); done.err != nil {
			return done
		}
		// The session remembers the undo, for when it is reopened; the
		// memory is already restored if this record cannot be written.
		s, err := rts.Session(ctx, sid)
		if err == nil {
			_, err = s.Append(ctx, coresession.TypeCustom, agent.MemoryUndoneRecord{Kind: agent.CustomMemoryUndone, ToolCallID: callID})
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
		// Items may have been reread from the file meanwhile: mark by call.
		for _, it := range m.items {
			if it.change != nil && it.callID == done.callID {
				it.undone, it.cacheKey = true, ""
			}
		}
	}
	if done.unrecorded != nil {
		return common.Failure(done.unrecorded), true
	}
	return common.Notice("undone: %s", done.summary), true
}

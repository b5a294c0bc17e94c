package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	coresession "github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/ui/common"
)

type listMsg struct {
	list []coresession.Summary
	err  error
}

type openedMsg struct {
	id      string
	title   string
	entries []coresession.Entry
	sess    *coresession.Session // watched for other writers' arrivals
	err     error
}

func (m *Model) loadList() tea.Cmd {
	if m.project == nil {
		return nil
	}
	sm, pid := m.d.Runtimes.Sessions(), m.project.ID
	return func() tea.Msg {
		list, err := sm.List(context.Background(), pid)
		return listMsg{list, err}
	}
}

func (m *Model) openSession(id string) tea.Cmd {
	rts := m.d.Runtimes
	return func() tea.Msg {
		s, err := rts.Session(context.Background(), id)
		if err != nil {
			return openedMsg{err: err}
		}
		return openedMsg{id: id, title: s.Title(), entries: s.Path(), sess: s}
	}
}

func (m *Model) newSession() tea.Cmd {
	if m.project == nil {
		return nil
	}
	sm, pid := m.d.Runtimes.Sessions(), m.project.ID
	return func() tea.Msg {
		s, err := sm.Create(context.Background(), pid, "")
		if err != nil {
			return openedMsg{err: err}
		}
		return openedMsg{id: s.ID()}
	}
}

func (m *Model) listKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.list)-1, 0))
	case key.Matches(msg, k.New):
		return m.newSession()
	case key.Matches(msg, k.Open):
		if m.cursor < len(m.list) {
			return m.openSession(m.list[m.cursor].ID)
		}
		return m.newSession()
	}
	return nil
}

func (m *Model) listView() string {
	st := m.d.UI
	var b strings.Builder
	b.WriteString(st.Title.Render("Sessions · "+common.VisibleLine(m.project.Name)) + st.Dim.Render("  enter open · n new · ? help") + "\n\n")
	if m.listErr != "" {
		b.WriteString(st.Error.Render(m.listErr))
		return b.String()
	}
	if len(m.list) == 0 {
		b.WriteString("No sessions yet. Press " + st.Key.Render("n") + " (or enter) to start one.")
		return b.String()
	}
	for i, s := range m.list {
		title := s.Title
		if title == "" {
			title = s.FirstMessage
		}
		if title == "" {
			title = "(untitled)"
		}
		line := fmt.Sprintf("%s  %s  %d entries", time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04"), common.VisibleLine(title), s.Entries)
		if s.Problem != "" {
			// A file pi-tui cannot use says why, in one line; the others work.
			line = fmt.Sprintf("%s  %s  ⚠ %s", time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04"),
				common.VisibleLine(filepath.Base(s.Path)), common.VisibleLine(s.Problem))
		}
		line = ansi.Truncate(line, max(m.width-4, 10), "…")
		if i == m.cursor {
			b.WriteString(st.Selected.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

package sessionlist

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

type listMsg struct {
	list []sessions.Summary
	of   worktree.Sessions // the listed sessions' worktree bindings, verified
	err  error
}

func (m *Model) loadList() tea.Cmd {
	if m.project == nil {
		return nil
	}
	sm, svc, pid, ctx := m.d.Store, m.wt.svc, m.project.ID, m.ctx
	return func() tea.Msg {
		list, err := sm.List(ctx, pid)
		msg := listMsg{list: list, err: err}
		if err == nil && svc != nil {
			// In the same message, so a row and its worktree cell change
			// together (the bindings come from the files just listed).
			msg.of = svc.Of(ctx, pid, list)
		}
		return msg
	}
}

// selected is the session under the cursor.
func (m *Model) selected() (sessions.Summary, bool) { return m.rows.Selected() }

// rowHeight is how many lines a session's row takes: one, and for the
// selected row whose worktree needs a fix, the lines the fix wraps to.
func (m *Model) rowHeight(s sessions.Summary) int {
	if sel, ok := m.rows.Selected(); ok && sel.ID == s.ID {
		return 1 + len(m.fixLines(s.ID))
	}
	return 1
}

// fixLines is the fix of session id's worktree, wrapped under its row:
// a sentence the user acts on is never cut.
func (m *Model) fixLines(id string) []string {
	fix := m.missingFix(id)
	if fix == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(common.VisibleLine(fix), max(m.width-4, 10), ""), "\n")
}

// setFilter filters the rows by what the filter says and puts the cursor
// on the first match, as a new query does.
func (m *Model) setFilter() {
	if m.filter.on {
		m.rows.SetFilter(m.filter.matches)
	} else {
		m.rows.SetFilter(nil)
	}
	m.rows.First()
}

func (m *Model) listKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.filter.on {
		switch {
		case key.Matches(msg, k.ClearFilter):
			m.filter.stop()
			m.rows.Keys = k.nav()
			m.setFilter()
		case key.Matches(msg, k.OpenMatch):
			if s, ok := m.selected(); ok {
				return m.act.Open(s.ID)
			}
		case m.rows.Update(msg):
			// moved within what shows
		default:
			before := m.filter.input.Value()
			var cmd tea.Cmd
			m.filter.input, cmd = m.filter.input.Update(msg)
			if m.filter.input.Value() == before {
				return cmd
			}
			m.setFilter()
			return tea.Batch(cmd, m.filter.search(m.ctx, m.rows.Items()))
		}
		return nil
	}
	if m.rows.Update(msg) {
		return nil
	}
	s, ok := m.selected()
	switch {
	case key.Matches(msg, k.Filter):
		m.filter.start()
		m.rows.Keys = k.FilterMoves
		m.setFilter()
	case key.Matches(msg, k.New):
		return m.act.New()
	case key.Matches(msg, k.Worktree):
		return m.act.NewInWorktree()
	case key.Matches(msg, k.Import) && m.act.Import != nil:
		return m.act.Import()
	case !ok:
		if key.Matches(msg, k.Open) {
			return m.act.New() // nothing to open: enter starts one
		}
	case key.Matches(msg, k.Diff):
		return m.showDiff(s.ID)
	case key.Matches(msg, k.Export) && m.act.Export != nil:
		if !s.Broken {
			return m.act.Export(s.ID)
		}
	case key.Matches(msg, k.Merge):
		return m.prepare("merge", s.ID)
	case key.Matches(msg, k.Discard):
		return m.prepare("discard", s.ID)
	case key.Matches(msg, k.Rename):
		if !s.Broken {
			return m.Rename(s.ID, s.Title)
		}
	case key.Matches(msg, k.Delete):
		if w, ok := m.wt.of.Bound[s.ID]; ok {
			// Said before asking: deleting would leave its folder
			// and branch behind, so the core refuses it.
			return common.Failure(fmt.Errorf("this session works in its worktree (branch %s): discard it first with %s", w.Branch, m.keys.Discard.Help().Key))
		}
		if _, ok := m.wt.of.Invalid[s.ID]; ok {
			return common.Failure(fmt.Errorf("this session's worktree binding is invalid: unbind it first with %s (nothing is deleted)", m.keys.Discard.Help().Key))
		}
		return m.deleteDialog(s)
	case key.Matches(msg, k.Open):
		return m.act.Open(s.ID)
	}
	return nil
}

// Rename asks for session id's new name (r here, /name in the chat);
// title is its name now.
func (m *Model) Rename(id, title string) tea.Cmd {
	return m.d.UI.Push(dialog.NewPrompt(m.d.UI, "Rename session", "pi shows the name in its session list too", title,
		func(v string) string {
			if strings.TrimSpace(v) == "" {
				return "a name cannot be empty"
			}
			return ""
		}, func(v string) tea.Cmd { return m.SetTitle(id, strings.TrimSpace(v)) }))
}

// RenamedMsg says a session was named: the list reloads, and the chat
// showing it takes the name.
type RenamedMsg struct{ ID, Title string }

// SetTitle writes a session's name (pi's session_info) in a command.
func (m *Model) SetTitle(id, title string) tea.Cmd {
	ss, ctx := m.d.Sessions, m.ctx
	return func() tea.Msg {
		s, err := ss.Open(ctx, id)
		if err == nil {
			err = s.SetTitle(ctx, title)
		}
		if err != nil {
			return common.NoticeMsg{Text: "rename: " + err.Error(), Error: true}
		}
		return RenamedMsg{ID: id, Title: title}
	}
}

// deleteDialog asks before a session's file is removed.
func (m *Model) deleteDialog(s sessions.Summary) tea.Cmd {
	name := Title(s.Title, s.FirstMessage)
	if name == "" {
		name = filepath.Base(s.Path)
	}
	body := fmt.Sprintf("Delete %q (%s)? Its file is removed, for pi as well:\n%s", name, common.Plural(s.Messages, "message"), common.VisibleLine(s.Path))
	ss, id, ctx := m.d.Sessions, s.ID, m.ctx
	return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Delete session", body, func() tea.Cmd {
		return func() tea.Msg {
			if err := ss.Delete(ctx, id); err != nil {
				return common.NoticeMsg{Text: "delete: " + err.Error(), Error: true}
			}
			return deletedMsg{id: id}
		}
	}, "D"))
}

// Title is what a session is called wherever pi-tui names it (its row
// here, the chat's header): its name, else its first message without the
// files attached to it; one line, shown as text ("" when it has neither).
func Title(name, first string) string {
	return common.VisibleLine(sessions.Label(name, first))
}

// deletedMsg says a session's file was removed.
type deletedMsg struct{ id string }

func (m *Model) listView() string {
	st := m.d.UI
	var b strings.Builder
	head := m.headLines()
	for _, l := range head {
		b.WriteString(l + "\n")
	}
	if m.filter.on {
		b.WriteString(m.filter.input.View() + "\n")
	} else {
		b.WriteString("\n")
	}
	if m.listErr != "" {
		b.WriteString(st.Error.Render(ansi.Wrap(m.listErr, max(m.width, 20), "")))
		return b.String()
	}
	if len(m.rows.Items()) == 0 {
		b.WriteString("No sessions yet. Press " + st.Key.Render("n") + " (or enter) to start one.")
		return b.String()
	}
	if m.rows.Len() == 0 {
		b.WriteString(st.Dim.Render("No session matches."))
		return b.String()
	}
	m.rows.SetLines(m.height - len(head) - 2)
	cursor := m.rows.Cursor()
	for i, s := range m.rows.Window() {
		title := Title(s.Title, s.FirstMessage)
		if title == "" {
			title = "(untitled)"
		}
		when := time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04")
		line := fmt.Sprintf("%s  %s  %s%s", when, title, common.Plural(s.Messages, "message"), m.worktreeCell(s.ID))
		if s.Problem != "" {
			// A file pi-tui cannot use says why, in one line; the others work.
			line = fmt.Sprintf("%s  %s  ⚠ %s", when, common.VisibleLine(filepath.Base(s.Path)), common.VisibleLine(s.Problem))
		}
		line = ansi.Truncate(line, max(m.width-4, 10), "…")
		if i == cursor {
			b.WriteString(st.Selected.Render("› "+line) + "\n")
			for _, l := range m.fixLines(s.ID) {
				b.WriteString(st.Warn.Render("  "+l) + "\n")
			}
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

// headKeys are the keys the list's header names: the list's own, and the
// worktree ones (diff, merge, discard) while a listed session has a
// worktree, since only then do they do anything. They come from the
// keymap, so the header says what the keys do and what ? lists.
func (m *Model) headKeys() []key.Binding {
	k := m.keys
	keys := []key.Binding{k.Open, k.New, k.Worktree, k.Rename, k.Delete, k.Filter}
	if len(m.wt.of.Bound) > 0 || len(m.wt.of.Invalid) > 0 {
		keys = append(keys, k.Diff, k.Merge, k.Discard)
	}
	return keys
}

// headLines is the list's header: its title, then its keys and the
// command palette's (ctrl+g while the filter has the keys, where ctrl+k
// deletes), wrapped to the width between hints (never inside one unless
// it alone is wider than the line), so every key stays named at any
// width.
func (m *Model) headLines() []string {
	st := m.d.UI
	title := "Sessions · " + common.VisibleLine(m.project.Name)
	var hints []string
	for _, b := range m.headKeys() {
		hints = append(hints, common.Hints(b))
	}
	palette := st.Keys.Palette
	if m.filter.on {
		palette = st.Keys.PaletteTyping
	}
	out := common.HintLines(title, append(hints, common.Hint(palette)), max(m.width, 20))
	for i, l := range out {
		if rest, ok := strings.CutPrefix(l, title); i == 0 && ok {
			out[i] = st.Title.Render(title) + st.Dim.Render(rest)
		} else {
			out[i] = st.Dim.Render(l)
		}
	}
	return out
}

package sessionlist

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// worktrees is the session list's view of its worktree sessions (ADR
// 0029): which sessions have one, and their statuses, read off the UI
// goroutine.
type worktrees struct {
	svc Worktrees
	of  worktree.Sessions // verified bindings, and the ones that are invalid
	// stat holds the last statuses read: the list shows them while newer
	// ones are read. One read runs at a time; a reload asked for meanwhile
	// runs after it.
	stat    map[string]worktree.Status
	loading bool
	again   bool
}

// wtStatusMsg carries their statuses.
type wtStatusMsg struct {
	projectID string
	stat      map[string]worktree.Status
}

func (m *Model) loadStatuses() tea.Cmd {
	if len(m.wt.of.Bound) == 0 {
		return nil
	}
	if m.wt.loading {
		m.wt.again = true
		return nil
	}
	m.wt.loading = true
	svc, pid, ctx, of := m.wt.svc, m.project.ID, m.ctx, m.wt.of
	return func() tea.Msg {
		// Always fresh: the agent or the user may have changed any file.
		return wtStatusMsg{projectID: pid, stat: svc.Statuses(ctx, of.Bound, 0)}
	}
}

// updateWorktrees handles the worktree messages; ok is false for others.
func (m *Model) updateWorktrees(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case wtStatusMsg:
		m.wt.loading = false
		if m.project != nil && msg.projectID == m.project.ID {
			m.wt.stat = msg.stat
		}
		if m.wt.again {
			m.wt.again = false
			return m.loadStatuses(), true
		}
		return nil, true
	case wtAskMsg:
		return m.ask(msg), true
	case wtDoneMsg:
		say := common.Notice("%s", msg.text)
		if msg.err != nil {
			say = m.failure(msg.err)
		}
		// The list (and its worktrees) first, so what the notice says is
		// what the list shows.
		return tea.Sequence(m.loadList(), tea.Batch(say, func() tea.Msg { return common.ProjectsChangedMsg{} })), true
	case wtDiffMsg:
		if msg.err != nil {
			return m.failure(msg.err), true
		}
		return m.d.UI.Push(newDiffPage(m.d.UI, msg.branch, msg.text)), true
	}
	return nil, false
}

// worktreeCell is what the list shows of a worktree session: its branch,
// * for uncommitted changes and the diff stat, or that its folder is gone.
func (m *Model) worktreeCell(id string) string {
	if _, ok := m.wt.of.Invalid[id]; ok {
		return "  ⚠ worktree binding invalid"
	}
	w, ok := m.wt.of.Bound[id]
	if !ok {
		return ""
	}
	st, ok := m.wt.stat[id]
	switch {
	case !ok:
		return "  ⎇ " + w.Branch
	case st.Missing:
		return "  ⎇ " + w.Branch + " · worktree missing"
	case st.Dirty():
		return "  ⎇ " + w.Branch + " * " + st.Stat()
	}
	return "  ⎇ " + w.Branch + " " + st.Stat()
}

// missingFix is the one-line fix of the selected session's missing
// worktree, or what is wrong with its binding ("" when nothing is).
func (m *Model) missingFix(id string) string {
	if inv, ok := m.wt.of.Invalid[id]; ok {
		return "its worktree binding is invalid, so it works in nothing (" + m.keys.Discard.Help().Key + " unbinds it, deleting nothing; /fork forks it): " + inv.Why
	}
	if st, ok := m.wt.stat[id]; ok && st.Missing {
		return st.Fix
	}
	return ""
}

// wtAskMsg carries what a merge or discard dialog names.
type wtAskMsg struct {
	op    string // "merge" or "discard"
	id    string
	title string
	w     sessions.Worktree
	st    worktree.Status
	err   error
}

// wtDoneMsg says how a merge or discard went.
type wtDoneMsg struct {
	text string
	err  error
}

// wtDiffMsg carries a worktree's diff.
type wtDiffMsg struct {
	branch, text string
	err          error
}

// withSession opens session id in a command and runs fn on it.
func (m *Model) withSession(id string, fn func(ctx context.Context, s *sessions.Session) tea.Msg) tea.Cmd {
	ss, ctx := m.d.Sessions, m.ctx
	return func() tea.Msg {
		s, err := ss.Open(ctx, id)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return fn(ctx, s)
	}
}

// prepare reads a session's worktree status for the merge or discard
// dialog, which names the uncommitted changes.
func (m *Model) prepare(op, id string) tea.Cmd {
	_, bound := m.wt.of.Bound[id]
	if _, invalid := m.wt.of.Invalid[id]; !bound && !invalid {
		return common.Failure(errors.New("this session has no worktree; w starts a session in one"))
	}
	svc := m.wt.svc
	return m.withSession(id, func(ctx context.Context, s *sessions.Session) tea.Msg {
		st, w, err := svc.Status(ctx, s)
		return wtAskMsg{op: op, id: id, title: worktree.MergeMessage(s), w: w, st: st, err: err}
	})
}

// ask opens the merge or discard dialog; the discard of a binding that
// cannot be verified unbinds it instead.
func (m *Model) ask(msg wtAskMsg) tea.Cmd {
	svc, id := m.wt.svc, msg.id
	if inv := (*worktree.InvalidError)(nil); errors.As(msg.err, &inv) && msg.op == "discard" {
		return m.unbindDialog(inv)
	}
	if msg.err != nil {
		return m.failure(msg.err)
	}
	if msg.op == "discard" {
		body := worktree.DiscardQuestion(msg.w, msg.st) + "\nThe session stays and works in the project root from then on."
		return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Discard worktree", common.Visible(body), func() tea.Cmd {
			return m.withSession(id, func(ctx context.Context, s *sessions.Session) tea.Msg {
				w, err := svc.Discard(ctx, s)
				if err != nil {
					return wtDoneMsg{err: err}
				}
				return wtDoneMsg{text: fmt.Sprintf("discarded the worktree and deleted %s", w.Branch)}
			})
		}, "X"))
	}
	if msg.st.Missing {
		return m.failure(errors.New(msg.st.Fix))
	}
	hint := fmt.Sprintf("merges %s into %s in %s", msg.w.Branch, msg.w.Base, msg.w.Main)
	if msg.st.Dirty() {
		hint = fmt.Sprintf("uncommitted changes in %s are committed with this message first; then it %s",
			worktree.ListSome(msg.st.Changed, 5), hint)
	}
	def := strings.TrimSpace(msg.title) // worktree.MergeMessage: the name, else the first message
	return m.d.UI.Push(dialog.NewPrompt(m.d.UI, "Merge "+msg.w.Branch, common.VisibleLine(hint), def,
		func(v string) string {
			if strings.TrimSpace(v) == "" {
				return "a commit message cannot be empty"
			}
			return ""
		}, func(v string) tea.Cmd {
			return m.withSession(id, func(ctx context.Context, s *sessions.Session) tea.Msg {
				res, w, err := svc.Merge(ctx, s, strings.TrimSpace(v))
				if err != nil {
					return wtDoneMsg{err: err}
				}
				how := "fast-forward"
				if !res.FastForward {
					how = "merge commit"
				}
				return wtDoneMsg{text: fmt.Sprintf("merged %s into %s (%s)", w.Branch, w.Base, how)}
			})
		}))
}

// failure says err in the status bar with the home folder written as ~,
// as dialogs write it: a worktree's errors name its folders (the main
// checkout, the worktree under the data folder).
func (m *Model) failure(err error) tea.Cmd {
	return common.Failure(errors.New(dialog.Tilde(err.Error(), m.d.UI.Home)))
}

// unbindDialog asks to unbind a session from a worktree binding pi-tui
// cannot verify: nothing is deleted (the folder and branch it names may be
// anyone's), and the session works in the project's main checkout.
func (m *Model) unbindDialog(inv *worktree.InvalidError) tea.Cmd {
	svc, id := m.wt.svc, inv.SessionID
	body := "This session's worktree binding is invalid: " + inv.Why + ".\nUnbind it? Nothing is deleted; the session works in the project's main checkout from then on. (Or fork it with /fork.)"
	return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Unbind invalid worktree", common.Visible(body), func() tea.Cmd {
		return m.withSession(id, func(ctx context.Context, s *sessions.Session) tea.Msg {
			if _, err := svc.Unbind(ctx, s); err != nil {
				return wtDoneMsg{err: err}
			}
			return wtDoneMsg{text: "unbound: the session works in the project's main checkout; nothing was deleted"}
		})
	}, "X"))
}

// showDiff loads a session's worktree diff for the diff page.
func (m *Model) showDiff(id string) tea.Cmd {
	if inv, ok := m.wt.of.Invalid[id]; ok {
		return m.failure(inv)
	}
	w, ok := m.wt.of.Bound[id]
	if !ok {
		return common.Failure(errors.New("this session has no worktree; w starts a session in one"))
	}
	svc := m.wt.svc
	return m.withSession(id, func(ctx context.Context, s *sessions.Session) tea.Msg {
		text, err := svc.Diff(ctx, s)
		return wtDiffMsg{branch: w.Branch, text: text, err: err}
	})
}

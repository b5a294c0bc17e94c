package chat

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// Opening and starting sessions: the list's enter, n and w come here
// (sessionlist.Actions), as do /new, /worktree and /fork. Each reads or
// writes the session in a command; the chat shows it when openedMsg
// arrives, and the tab moves its focus to the chat then.

// IsOpenResult reports whether msg ends the opening of a session that
// Open, New or NewInWorktree began, opened or not: the session tab holds
// the keys typed meanwhile until then.
func IsOpenResult(msg tea.Msg) bool {
	_, ok := msg.(openedMsg)
	return ok
}

type openedMsg struct {
	id      string
	title   string
	entries []sessions.Entry
	sess    *sessions.Session // watched for other writers' arrivals
	// leaf is sess's leaf, read before entries: if it has moved by the
	// time the view shows the session, the view reads it again (catchUp).
	leaf    string
	err     error
	input   string // put in the chat input (a forked message to edit)
	branch  string // the worktree branch the session works on, "" for none
	root    string // the folder it works in there (the worktree's root)
	invalid string // why the session's worktree binding is invalid, "" when it is not
	notice  string // said in the status bar once open
}

// Open opens session id of the project.
func (m *Model) Open(id string) tea.Cmd {
	ss, wts, ctx := m.d.Sessions, m.d.Worktrees, m.ctx
	return func() tea.Msg { return openSession(ctx, ss, wts, id) }
}

// openSession reads session id and its worktree binding; it runs in a
// command.
func openSession(ctx context.Context, ss Sessions, wts Worktrees, id string) openedMsg {
	s, err := ss.Open(ctx, id)
	if err != nil {
		return openedMsg{err: err}
	}
	msg := openedMsg{id: id, title: s.Title(), leaf: s.Leaf(), sess: s}
	msg.entries = s.Path() // after the leaf, which then vouches for it
	msg.branch, msg.root, msg.invalid = bindingOf(ctx, wts, s)
	return msg
}

// bindingOf names the worktree branch a session works on and its root
// ("" for none), or says why its binding is invalid; it scans the session
// and may run git, so it is called in commands, not in Update.
func bindingOf(ctx context.Context, svc Worktrees, s *sessions.Session) (branch, root, invalid string) {
	if svc == nil {
		return "", "", "" // a program without worktrees works in the project
	}
	w, bound, err := svc.Lookup(ctx, s)
	switch {
	case err != nil:
		return "", "", err.Error()
	case bound:
		return w.Branch, w.Root, ""
	}
	return "", "", ""
}

// OpenLatest reopens the project's latest session, as `pi -c` does
// (`pi-tui -c`); a project without sessions stays on its list.
func (m *Model) OpenLatest(projectID string) tea.Cmd {
	store, ss, wts, ctx := m.d.Store, m.d.Sessions, m.d.Worktrees, m.ctx
	return func() tea.Msg {
		sum, ok, err := store.Latest(ctx, projectID)
		if err != nil {
			return openedMsg{err: err}
		}
		if !ok {
			return nil
		}
		return openSession(ctx, ss, wts, sum.ID)
	}
}

// New starts a session in the project (n in the list, /new).
func (m *Model) New() tea.Cmd {
	if m.project == nil {
		return nil
	}
	sm, pid, ctx := m.d.Store, m.project.ID, m.ctx
	return func() tea.Msg {
		s, err := sm.Create(ctx, pid, "")
		if err != nil {
			return openedMsg{err: err}
		}
		// Watched like an opened one: pi, or another program given the
		// file, may write to it once it exists.
		return openedMsg{id: s.ID(), sess: s}
	}
}

// NewInWorktree starts a session in a worktree of its own (w in the
// list, /worktree).
func (m *Model) NewInWorktree() tea.Cmd {
	svc := m.d.Worktrees // the runtimes' own: one verification, one cache
	if m.project == nil || m.d.Host == nil || svc == nil {
		return nil
	}
	sm, pid, ctx, home := m.d.Store, m.project.ID, m.ctx, m.d.UI.Home
	return func() tea.Msg {
		s, w, err := svc.NewSession(ctx, sm, pid, "", "")
		if err != nil {
			return openedMsg{err: err}
		}
		// Paths in notices write the home folder as ~, as dialogs do.
		return openedMsg{id: s.ID(), sess: s, branch: w.Branch, root: w.Root, notice: fmt.Sprintf("working on branch %s (from %s) in %s", w.Branch, w.Base, common.VisibleLine(paths.Tilde(w.Root, home)))}
	}
}

// failureNotice says err in the status bar with the home folder written
// as ~, as dialogs write it: opening a session in a worktree fails
// naming its folder.
func (m *Model) failureNotice(err error) tea.Cmd {
	return common.Failure(errors.New(dialog.Tilde(err.Error(), m.d.UI.Home)))
}

// rename names the open session (/name NAME), or asks for the name.
func (m *Model) rename(name string) tea.Cmd {
	if name == "" {
		return m.tab.List.Rename(m.sid, m.title)
	}
	return m.tab.List.SetTitle(m.sid, name)
}

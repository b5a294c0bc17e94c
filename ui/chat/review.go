package chat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/reviewview"
)

// Review and undo of the agent's file changes in the chat (issue 23):
// the cards under tool calls get the session's changes, ctrl+o on a call
// that changed files shows its diffs, /changes opens the Review screen and
// /undo rewinds the files of the last turn.

type changesMsg struct {
	sid string
	cs  []checkpoints.Change
	err error
}

type callDiffMsg struct {
	sid, callID, text string
}

type lastTurnMsg struct {
	sid, entry string
	files      []string
	err        error
}

type filesUndoneMsg struct {
	sid string
	u   checkpoints.Undo
	res checkpoints.UndoResult
	err error
	// then runs once the files are back (a /tree branch with files too).
	then tea.Cmd
}

// loadChanges reads the session's changes for the cards.
func (m *Model) loadChanges() tea.Cmd {
	if m.sid == "" || m.d.Host == nil || m.d.Host.Review == nil {
		return nil
	}
	svc, sid, ctx := m.d.Host.Review, m.sid, m.ctx
	return func() tea.Msg {
		cs, err := svc.Changes(ctx, sid)
		return changesMsg{sid: sid, cs: cs, err: err}
	}
}

// loadCallDiff reads the diffs of one call's changes, for its expanded
// card.
func (m *Model) loadCallDiff(callID string, ns []int) tea.Cmd {
	svc, sid, ctx := m.d.Host.Review, m.sid, m.ctx
	return func() tea.Msg {
		var b strings.Builder
		for _, n := range ns {
			text, err := svc.Diff(ctx, checkpoints.Change{Session: sid, N: n})
			if err != nil {
				text = fmt.Sprintf("(change %d: %v)\n", n, err)
			}
			b.WriteString(text)
		}
		return callDiffMsg{sid: sid, callID: callID, text: b.String()}
	}
}

// openReview opens the Review screen.
func (m *Model) openReview() tea.Cmd {
	rts, sid := m.d.Runtimes, m.sid
	busy := func() bool { return rts.State(sid).Runtime == "working" }
	p, load := reviewview.New(m.d.UI, m.ctx, m.d.Host.Review, sid, busy)
	return tea.Batch(m.d.UI.Push(p), load)
}

// undoLastTurn finds what /undo would rewind, to ask first.
func (m *Model) undoLastTurn() tea.Cmd {
	svc, sid, ctx := m.d.Host.Review, m.sid, m.ctx
	return func() tea.Msg {
		entry, err := svc.LastTurn(ctx, sid)
		if err != nil || entry == "" {
			return lastTurnMsg{sid: sid, err: err}
		}
		cs, err := svc.From(ctx, sid, entry)
		return lastTurnMsg{sid: sid, entry: entry, files: filesOf(cs), err: err}
	}
}

// filesOf is the files changes touch, each once, in order.
func filesOf(cs []checkpoints.Change) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cs {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c.Path)
		}
	}
	return out
}

// undoFiles undoes u (from a confirmation), then runs then.
func (m *Model) undoFiles(u checkpoints.Undo, then tea.Cmd) tea.Cmd {
	svc, sid, ctx := m.d.Host.Review, m.sid, m.ctx
	return func() tea.Msg {
		res, err := svc.Undo(ctx, sid, u)
		return filesUndoneMsg{sid: sid, u: u, res: res, err: err, then: then}
	}
}

// fileList names files for a dialog: the first few, then how many more.
func fileList(files []string) string {
	const most = 8
	var b strings.Builder
	for i, f := range files {
		if i == most {
			fmt.Fprintf(&b, "\n  … and %d more", len(files)-most)
			break
		}
		b.WriteString("\n  " + common.VisibleLine(f))
	}
	return b.String()
}

// treeFilesMsg is what continuing from an entry would leave in the
// files: the agent's active changes made after the point /tree goes back
// to.
type treeFilesMsg struct {
	sid     string
	e       sessions.Entry
	changes []checkpoints.Change
	err     error
}

// branchNowMsg continues from an entry once its files question is
// answered.
type branchNowMsg struct{ e sessions.Entry }

// continueFrom is /tree's enter: when the agent changed files after the
// point it goes back to, it asks first: files too, or the conversation
// only.
func (m *Model) continueFrom(e sessions.Entry) tea.Cmd {
	if m.d.Host == nil || m.d.Host.Review == nil {
		return m.branchTo(e)
	}
	svc, sid, ctx := m.d.Host.Review, m.sid, m.ctx
	return func() tea.Msg {
		cs, err := svc.From(ctx, sid, e.ID)
		if e.Type != sessions.TypeUser {
			// Continuing after this entry: its own changes stay.
			kept := cs[:0]
			for _, c := range cs {
				if c.Entry != e.ID {
					kept = append(kept, c)
				}
			}
			cs = kept
		}
		return treeFilesMsg{sid: sid, e: e, changes: cs, err: err}
	}
}

func (m *Model) askTreeFiles(msg treeFilesMsg) tea.Cmd {
	if msg.err != nil || len(msg.changes) == 0 {
		return m.branchTo(msg.e) // nothing to rewind (or nothing known): the conversation alone
	}
	var ns []int
	for _, c := range msg.changes {
		ns = append(ns, c.N)
	}
	e := msg.e
	branch := func() tea.Msg { return branchNowMsg{e: e} }
	files := filesOf(msg.changes)
	body := fmt.Sprintf("The agent changed %s after this point:%s\n\nFiles too puts them back as they were there (refused, naming them, if any changed since); conversation only leaves them as they are.",
		common.Plural(len(files), "file"), fileList(files))
	return m.d.UI.Push(dialog.NewChoose(m.d.UI, "Continue from here: the files too?", body,
		dialog.Choice{Key: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "files too")), Run: func() tea.Cmd { return m.undoFiles(checkpoints.Undo{Changes: ns}, branch) }},
		dialog.Choice{Key: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "conversation only")), Run: func() tea.Cmd { return m.branchTo(e) }},
	))
}

// updateReview handles the messages of this file.
func (m *Model) updateReview(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case treeFilesMsg:
		if msg.sid != m.sid {
			return nil, true
		}
		return m.askTreeFiles(msg), true
	case branchNowMsg:
		return m.branchTo(msg.e), true
	case changesMsg:
		if msg.sid == m.sid && msg.err == nil {
			m.tr.SetChanges(msg.cs)
		}
		return nil, true
	case callDiffMsg:
		if msg.sid == m.sid {
			m.tr.SetDiff(msg.callID, msg.text)
		}
		return nil, true
	case lastTurnMsg:
		if msg.sid != m.sid {
			return nil, true
		}
		switch {
		case msg.err != nil:
			return common.Failure(msg.err), true
		case msg.entry == "" || len(msg.files) == 0:
			return common.Notice("nothing to undo: the agent has changed no file since your last message that is not undone"), true
		}
		u := checkpoints.Undo{To: msg.entry}
		body := "Put these files back as they were before your last message:" + fileList(msg.files) +
			"\n\nThe conversation stays as it is; /changes can redo it."
		return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Undo the last turn's file changes?", body, func() tea.Cmd { return m.undoFiles(u, nil) })), true
	case filesUndoneMsg:
		if msg.sid != m.sid {
			return nil, true
		}
		var ce *checkpoints.ConflictError
		switch {
		case errors.As(msg.err, &ce) && ce.Forceable() && !msg.u.Force:
			var files []string
			for _, c := range ce.Conflicts {
				files = append(files, c.Path+" ("+c.Reason+")")
			}
			forced := msg.u
			forced.Force = true
			body := "Nothing was changed. These files are no longer as the agent left them:" + fileList(files) +
				"\n\nOverwrite them anyway? What is in them now is lost."
			return m.d.UI.Push(dialog.NewConfirm(m.d.UI, "Overwrite later changes?", body, func() tea.Cmd { return m.undoFiles(forced, msg.then) }, "o")), true
		case msg.err != nil:
			return common.Failure(msg.err), true
		}
		say := common.Notice("undid %s: %s", common.Plural(len(msg.res.Changes), "change"), strings.Join(msg.res.Files, ", "))
		return tea.Batch(say, m.loadChanges(), msg.then), true
	}
	return nil, false
}

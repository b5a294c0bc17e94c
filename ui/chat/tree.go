package chat

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/inspector"
	"github.com/pi-tui/pi-tui/ui/sessiontree"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// treePicker loads the session's tree in a command, then shows it: enter
// continues from the chosen entry (fork=false) or forks a new session
// from it (fork=true, /fork); f forks either way.
func (m *Model) treePicker(fork bool) tea.Cmd {
	ss, id, ctx := m.d.Sessions, m.sid, m.ctx
	return func() tea.Msg {
		s, err := ss.Open(ctx, id)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		tree, leaf := s.Tree(), s.Leaf()
		// The tree's leaf is the entry it shows nearest pi's leaf: the
		// last on the current branch (children come after their parents
		// in the file). It may be one only pi's tree shows (a branch
		// summary), which Leaf skips.
		for _, te := range tree {
			if te.OnPath {
				leaf = te.ID
			}
		}
		return treeMsg{tree: tree, leaf: leaf, fork: fork}
	}
}

type treeMsg struct {
	tree []sessions.TreeEntry
	leaf string
	fork bool
}

func (m *Model) showTree(msg treeMsg) tea.Cmd {
	if len(msg.tree) == 0 {
		return common.Notice("no messages to branch from yet")
	}
	jump := func(te sessions.TreeEntry, _ string) tea.Cmd {
		files, own := filesFrom(msg.tree, te)
		return m.review.continueFrom(te.Entry, files, own)
	}
	fork := func(te sessions.TreeEntry, _ string) tea.Cmd { return m.forkFrom(te.Entry) }
	if msg.fork {
		jump = fork
	}
	return m.d.UI.Push(sessiontree.New(m.d.UI, msg.fork, msg.tree, msg.leaf, transcript.TreeText, jump, fork))
}

// filesFrom is where continuing from te counts the agent's file changes
// from: te itself, or for an entry pi-tui keeps no record of (PiOnly: a
// branch summary, an extension's entry), the nearest one above it that
// it does. own says whether that entry's own changes go back too: a
// message of the user's is sent again; and with nothing above, the first
// entry pi-tui knows after te stands in for the start ("" when there is
// none: nothing was changed).
func filesFrom(tree []sessions.TreeEntry, te sessions.TreeEntry) (files string, own bool) {
	byID := make(map[string]*sessions.TreeEntry, len(tree))
	for i := range tree {
		byID[tree[i].ID] = &tree[i]
	}
	at := &te
	for steps := 0; at != nil && at.PiOnly && steps < len(tree); steps++ {
		at = byID[at.Parent]
	}
	if at != nil && !at.PiOnly {
		return at.ID, at.Type == sessions.TypeUser
	}
	for i := range tree {
		if tree[i].ID == te.ID {
			for _, next := range tree[i+1:] {
				if !next.PiOnly {
					return next.ID, true
				}
			}
		}
	}
	return "", false
}

// branchTo continues the session from an entry, on a new branch; the old
// branch stays. From a user message it moves to just before it and puts
// the message in the input to edit and send again.
func (m *Model) branchTo(e sessions.Entry) tea.Cmd { return m.branchSaying(e, "") }

// branchSaying is branchTo that says said in the transcript once
// branched (what was done to the files first).
func (m *Model) branchSaying(e sessions.Entry, said string) tea.Cmd {
	ss, id, ctx := m.d.Sessions, m.sid, m.ctx
	at, edit := e.ID, e.Type == sessions.TypeUser
	if edit {
		at = e.ParentID
		m.in.set(transcript.UserText(e)) // the cursor at its end, to edit it
	}
	return func() tea.Msg {
		if err := ss.Branch(ctx, id, at); err != nil {
			return openedMsg{err: err}
		}
		s, err := ss.Open(ctx, id)
		if err != nil {
			return openedMsg{err: err}
		}
		return branchedMsg{entries: s.Path(), edit: edit, said: said, sess: s}
	}
}

// forkFrom starts a new session holding the branch up to an entry (up to
// just before a user message, which goes to the input) and opens it.
func (m *Model) forkFrom(e sessions.Entry) tea.Cmd {
	ss, id, ctx := m.d.Sessions, m.sid, m.ctx
	upTo, text := e.ID, ""
	if e.Type == sessions.TypeUser {
		upTo, text = e.ParentID, transcript.UserText(e)
	}
	return func() tea.Msg {
		s, err := ss.Fork(ctx, id, upTo)
		if err != nil {
			return openedMsg{err: err}
		}
		return openedMsg{id: s.ID(), title: s.Title(), leaf: s.Leaf(), entries: s.Path(), sess: s, input: text, notice: "forked: a new session; the old one is unchanged"}
	}
}

type branchedMsg struct {
	entries []sessions.Entry
	sess    *sessions.Session // the session as branched
	edit    bool              // a message of the user's went back to the input
	said    string            // what was done before branching (the files put back), "" for nothing
}

func (m *Model) inspect() tea.Cmd {
	rts, id, model, ctx, ui := m.d.Runtime, m.sid, m.tune.spec(), m.ctx, m.d.UI
	return func() tea.Msg {
		in, err := rts.Inspect(ctx, id, model)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return common.PushMsg{Layer: inspector.New(ui, in)}
	}
}

// handleBranched applies a branch picked with /tree. The view reads the
// session from then on through the object the branch was made on: the
// one it opened before the session's runtime launched is another
// reading of the file, which keeps its own leaf when another writer
// branches, so rereading it would bring the old branch back.
func (m *Model) handleBranched(msg branchedMsg) tea.Cmd {
	m.tr.Load(msg.entries)
	if msg.sess == nil || msg.sess == m.open || m.stopWatch == nil {
		return nil
	}
	m.open = msg.sess
	wctx, cancel := context.WithCancel(m.ctx)
	m.stopWatch()
	m.stopWatch = cancel
	return m.watchArrivals(wctx, m.sid, msg.sess)
}

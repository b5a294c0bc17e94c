package chat

import (
	"context"
	"errors"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
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

// modelPicker reads models.json in a command, then offers the models; a
// pi session's are pi's catalogue (picatalogue.go).
func (m *Model) modelPicker() tea.Cmd {
	agentDir, env := m.d.Host.Places.AgentDir, m.d.Env
	cur, _ := m.Effective()
	rts, sid, ctx, pi := m.d.Runtime, m.sid, m.ctx, m.piModelPicker()
	return func() tea.Msg {
		if engineHas(ctx, rts, sid, ownModels) {
			return pi(ctx)
		}
		reg := provider.Load(agentDir, env)
		var refs []pisettings.ModelRef
		for _, l := range reg.Usable() {
			refs = append(refs, l.ModelRef)
		}
		// The model the next prompt uses, as PROVIDER/ID: the session's
		// choice, else what its runtime runs, else the default.
		current, _ := provider.SplitThinking(cur)
		if d, err := provider.Describe(agentDir, env, cur); err == nil {
			current = d.Model.Provider + "/" + d.Model.ID
		}
		return modelsMsg{refs: refs, current: current, err: reg.Err()}
	}
}

type modelsMsg struct {
	refs    []pisettings.ModelRef
	current string // the model in use, marked in the menu
	err     error
}

func (m *Model) showModels(refs []pisettings.ModelRef, current string, err error) tea.Cmd {
	if len(refs) == 0 {
		if err == nil {
			err = errors.New("no model is available: set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or add a provider to models.json")
		}
		return common.Failure(err)
	}
	rows := make([]modelRow, len(refs))
	for i, r := range refs {
		rows[i] = modelRow{spec: r.String(), label: r.String()}
	}
	return m.d.UI.Push(m.modelMenu(rows, current))
}

// modelRow is one model the /model menu offers: its spec and its line.
type modelRow struct{ spec, label string }

// modelMenu offers the models: the first 35 have a key each, the rest
// are reached with ↑/↓ and enter. It opens on the model in use.
func (m *Model) modelMenu(rows []modelRow, current string) *dialog.Menu {
	keysFor := "123456789abcdefghijklmnopqrstuvwxyz"
	var items []dialog.Item
	at := 0
	for i, r := range rows {
		k, spec, label := "", r.spec, r.label
		if i < len(keysFor) {
			k = string(keysFor[i])
		}
		if spec == current {
			label += dialog.Current
			at = i
		}
		b := key.NewBinding(key.WithHelp(k, label))
		if k != "" {
			b.SetKeys(k)
		}
		items = append(items, dialog.Item{Key: b, Run: func() tea.Cmd { return m.chooseModel(spec) }})
	}
	return dialog.NewMenu(m.d.UI, "Model for this session", items).Highlight(at)
}

// chooseModel makes spec the session's model from its next prompt on.
func (m *Model) chooseModel(spec string) tea.Cmd {
	m.model = spec
	ss, id, ctx := m.d.Sessions, m.sid, m.ctx
	// Kept in the session, so resuming it later uses this model.
	return tea.Batch(common.Notice("model %s: from the next prompt on (model-changed)", spec), m.describe(), func() tea.Msg {
		if s, err := ss.Open(ctx, id); err == nil {
			s.Append(ctx, sessions.TypeModelChange, map[string]string{"model": spec})
		}
		return nil
	})
}

func (m *Model) inspect() tea.Cmd {
	rts, id, model, ctx, ui := m.d.Runtime, m.sid, m.spec(), m.ctx, m.d.UI
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

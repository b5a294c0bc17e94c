package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/reviewview"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// Review and undo of the agent's file changes in the chat (issue 23):
// the cards under tool calls get the session's changes (at open, and
// again after every undo or redo, here or elsewhere); ctrl+o on a call
// that changed files shows its diffs; /changes opens the Review screen;
// /undo rewinds the files of the last turn; /tree, continuing from an
// earlier message, asks whether the files go back too. Every question
// put after a read is guarded (guard.go): the user may be typing.

type changesMsg struct {
	sid string
	seq int
	cs  []checkpoints.Change
	err error
}

type callDiffMsg struct {
	sid, callID, text string
}

type lastTurnMsg struct {
	sid, entry string
	cs         []checkpoints.Change
	err        error
}

type filesUndoneMsg struct {
	sid string
	u   checkpoints.Undo
	res checkpoints.UndoResult
	err error
	// branch is the entry /tree continues from once the files are back
	// (files too); nil for /undo.
	branch *sessions.Entry
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

// Review is what the chat asks of the review service
// (core/review.Service): the Review screen's part (reviewview.Service),
// the cards' diffs in one read, and the changes of the last turn and of
// those after an entry.
type Review interface {
	reviewview.Service
	Diffs(ctx context.Context, cs []checkpoints.Change) ([]string, error)
	LastTurn(ctx context.Context, id string) (string, error)
	From(ctx context.Context, id, entry string) ([]checkpoints.Change, error)
}

// reviewer is the chat's part for the agent's file changes: the cards'
// changes and diffs, /changes, /undo and /tree's "files too". It keeps
// its own reads in order and takes their messages; what it asks of the
// rest of the chat is given to it: whether the agent is busy, and
// continuing the session from an entry.
type reviewer struct {
	*scope
	svc Review   // nil: the host has none (a chat under test)
	ss  Sessions // the session's tree, for the turns the Review screen lists
	tr  *transcript.Model
	// busy reports whether the agent works in the session: an undo waits
	// for its turn. branch continues the session from e (on a new
	// branch), saying said once branched.
	busy   func() bool
	branch func(e sessions.Entry, said string) tea.Cmd
	// seq numbers the reads of the session's file changes for the cards:
	// only the latest read is shown.
	seq int
}

// reviewing says the host has a review service (a chat under test may
// have none).
func (r *reviewer) reviewing() bool { return r.svc != nil }

// load reads the session's changes for the cards; a later read
// wins over an earlier one still under way.
func (r *reviewer) load() tea.Cmd {
	if r.sid == "" || !r.reviewing() {
		return nil
	}
	r.seq++
	svc, sid, ctx, seq := r.svc, r.sid, r.ctx, r.seq
	return func() tea.Msg {
		cs, err := svc.Changes(ctx, sid)
		return changesMsg{sid: sid, seq: seq, cs: cs, err: err}
	}
}

// loadDiffs reads the diffs of the expanded calls that changed files and
// do not show them yet, a command per call.
func (r *reviewer) loadDiffs() tea.Cmd {
	if !r.reviewing() {
		return nil
	}
	var cmds []tea.Cmd
	for _, want := range r.tr.DiffsWanted() {
		svc, sid, ctx := r.svc, r.sid, r.ctx
		cmds = append(cmds, func() tea.Msg {
			var b strings.Builder
			cs := slices.Clone(want.Changes)
			for i := range cs {
				if cs[i].Session == "" {
					cs[i].Session = sid // a live call's: this session's own
				}
			}
			texts, batchErr := svc.Diffs(ctx, cs)
			for i, c := range cs {
				var text string
				if batchErr == nil {
					text = texts[i]
				} else {
					// One change the journal lacks: the others are still shown,
					// each read alone, and that one says why.
					var err error
					if text, err = svc.Diff(ctx, c); err != nil {
						text = fmt.Sprintf("(change %d, %s: %v)\n", c.N, c.Path, err)
					}
				}
				b.WriteString(text)
				if !strings.HasSuffix(text, "\n") {
					b.WriteString("\n")
				}
			}
			return callDiffMsg{sid: sid, callID: want.CallID, text: b.String()}
		})
	}
	return tea.Batch(cmds...)
}

// busyUndo is what an undo asked for while the agent works is told.
const busyUndo = "the agent is working in this session: undo waits until its turn is over (or press esc to abort it)"

// open opens the Review screen.
func (r *reviewer) open() tea.Cmd {
	if !r.reviewing() {
		return common.Failure(errors.New("this program has no review service"))
	}
	return r.ui.Push(reviewview.New(reviewview.Deps{Ctx: r.ctx, UI: r.ui, Service: r.svc, Session: r.sid,
		Busy: r.busy, Turns: r.turnsOf()}))
}

// turnsOf returns the turn of each entry that made changes, for the
// Review screen to list its changes under: the message of the user's that
// started it, found by walking up the tree from the entry that made the
// change (through the entries the tree shows: records between them are
// skipped).
func (r *reviewer) turnsOf() func(ctx context.Context, entries []string) map[string]reviewview.Turn {
	ss, sid := r.ss, r.sid
	return func(ctx context.Context, entries []string) map[string]reviewview.Turn {
		s, err := ss.Open(ctx, sid)
		if err != nil {
			return nil
		}
		tree := s.Tree()
		byID := make(map[string]*sessions.TreeEntry, len(tree))
		for i := range tree {
			byID[tree[i].ID] = &tree[i]
		}
		out := map[string]reviewview.Turn{}
		for _, id := range entries {
			for te, steps := byID[id], 0; te != nil && steps < len(tree); te, steps = byID[te.Parent], steps+1 {
				if te.Type == sessions.TypeUser {
					out[id] = reviewview.Turn{ID: te.ID, Heading: "you: " + firstLine(transcript.UserText(te.Entry))}
					break
				}
			}
		}
		return out
	}
}

// undoLastTurn finds what /undo would rewind, to ask first.
func (r *reviewer) undoLastTurn() tea.Cmd {
	if !r.reviewing() {
		return common.Failure(errors.New("this program has no review service"))
	}
	svc, sid, ctx := r.svc, r.sid, r.ctx
	return func() tea.Msg {
		entry, err := svc.LastTurn(ctx, sid)
		if err != nil || entry == "" {
			return lastTurnMsg{sid: sid, err: err}
		}
		cs, err := svc.From(ctx, sid, entry)
		return lastTurnMsg{sid: sid, entry: entry, cs: cs, err: err}
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

// undoFiles undoes u in a command; branch, when set, is where /tree
// continues once the files are back.
func (r *reviewer) undoFiles(u checkpoints.Undo, branch *sessions.Entry) tea.Cmd {
	if r.busy() {
		return common.Failure(errors.New(busyUndo))
	}
	svc, sid, ctx := r.svc, r.sid, r.ctx
	return func() tea.Msg {
		res, err := svc.Undo(ctx, sid, u)
		return filesUndoneMsg{sid: sid, u: u, res: res, err: err, branch: branch}
	}
}

// continueFrom is /tree's enter: when the agent changed files after the
// point it goes back to, it asks first: files too, or the conversation
// only. The changes are counted from entry files (e, or the entry
// standing in for one pi-tui keeps no record of; "" for none), with its
// own changes when own is set (a message of the user's, sent again).
func (r *reviewer) continueFrom(e sessions.Entry, files string, own bool) tea.Cmd {
	if !r.reviewing() || files == "" {
		return r.branch(e, "")
	}
	svc, sid, ctx := r.svc, r.sid, r.ctx
	return func() tea.Msg {
		cs, err := svc.From(ctx, sid, files)
		if !own {
			// Continuing after this entry: its own changes stay.
			kept := cs[:0]
			for _, c := range cs {
				if c.Entry != files {
					kept = append(kept, c)
				}
			}
			cs = kept
		}
		return treeFilesMsg{sid: sid, e: e, changes: cs, err: err}
	}
}

func (r *reviewer) askTreeFiles(msg treeFilesMsg) tea.Cmd {
	e := msg.e
	if msg.err != nil {
		body := "What the agent changed after this point cannot be read (" + common.VisibleLine(msg.err.Error()) + "), so the files cannot go back with it. c continues from there and leaves the files as they are."
		return r.ui.Push(newGuarded(r.ui, "Continue from here: the conversation only?", body,
			choice("c", "conversation only", func() tea.Cmd { return r.branch(e, "") })))
	}
	if len(msg.changes) == 0 {
		return r.branch(msg.e, "") // the files are as they were there
	}
	var ns []int
	for _, c := range msg.changes {
		ns = append(ns, c.N)
	}
	files := filesOf(msg.changes)
	body := fmt.Sprintf("The agent changed %s after this point:%s\n\nFiles too puts them back as they were there (refused, naming them, if any changed since); conversation only leaves them as they are.",
		common.Plural(len(files), "file"), reviewview.FileList(files))
	return r.ui.Push(newGuarded(r.ui, "Continue from here: the files too?", body,
		choice("f", "files too", func() tea.Cmd { return r.undoFiles(checkpoints.Undo{Changes: ns}, &e) }),
		choice("c", "conversation only", func() tea.Cmd { return r.branch(e, "") }),
	))
}

// askUndoLastTurn confirms /undo, naming the files.
func (r *reviewer) askUndoLastTurn(msg lastTurnMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		return common.Failure(msg.err)
	case msg.entry == "" || len(msg.cs) == 0:
		return common.Notice("nothing to undo: the agent has changed no file since your last message that is not undone")
	}
	u := checkpoints.Undo{To: msg.entry}
	files := filesOf(msg.cs)
	body := fmt.Sprintf("%s to put back as they were before your last message:%s\n\nThe conversation stays as it is; /changes redoes a change.",
		common.Plural(len(files), "file"), reviewview.FileList(files))
	return r.ui.Push(newGuarded(r.ui, "Undo the last turn's file changes?", body,
		choice("y", "undo them", func() tea.Cmd { return r.undoFiles(u, nil) }),
		choice("n", "keep them", nil),
	))
}

// filesUndone says what an undo did; a refusal names the files and
// offers what can be done: overwrite them (when that gets past every
// file), or, for /tree, continue with the conversation only.
func (r *reviewer) filesUndone(msg filesUndoneMsg) tea.Cmd {
	var ce *checkpoints.ConflictError
	if errors.As(msg.err, &ce) {
		files := ce.Lines()
		var choices []dialog.Choice
		body := "Nothing was changed: these files are no longer as the agent left them:" + reviewview.FileList(files)
		if ce.Forceable() && !msg.u.Force {
			forced := msg.u
			forced.Force = true
			choices = append(choices, choice("o", "overwrite them", func() tea.Cmd { return r.undoFiles(forced, msg.branch) }))
			body += "\n\no puts them back anyway: what is in them now is lost."
		}
		if msg.branch != nil {
			e := *msg.branch
			choices = append(choices, choice("c", "conversation only", func() tea.Cmd { return r.branch(e, "") }))
			body += "\n\nThe session has not branched; c continues from there and leaves the files as they are."
		}
		if len(choices) == 0 {
			return common.Failure(msg.err)
		}
		return r.ui.Push(newGuarded(r.ui, "Nothing was undone", body, choices...))
	}
	if msg.err != nil {
		if msg.branch != nil {
			return common.Failure(fmt.Errorf("%w; the session did not branch", msg.err))
		}
		return common.Failure(msg.err)
	}
	said := fmt.Sprintf("undid %s: %s", common.Plural(len(msg.res.Changes), "change"), strings.Join(msg.res.Files, ", "))
	if msg.branch != nil {
		return tea.Batch(r.load(), r.branch(*msg.branch, said))
	}
	return tea.Batch(common.Notice("%s", said), r.load())
}

// update takes the reviewer's messages.
func (r *reviewer) update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case treeFilesMsg:
		if msg.sid != r.sid {
			return nil, true
		}
		return r.askTreeFiles(msg), true
	case changesMsg:
		if msg.sid != r.sid || msg.seq != r.seq {
			return nil, true
		}
		if msg.err != nil {
			return common.Failure(fmt.Errorf("the session's file changes: %w", msg.err)), true
		}
		r.tr.SetChanges(msg.cs)
		return r.loadDiffs(), true
	case callDiffMsg:
		if msg.sid == r.sid {
			r.tr.SetDiff(msg.callID, msg.text)
		}
		return nil, true
	case lastTurnMsg:
		if msg.sid != r.sid {
			return nil, true
		}
		return r.askUndoLastTurn(msg), true
	case filesUndoneMsg:
		if msg.sid != r.sid {
			return nil, true
		}
		return r.filesUndone(msg), true
	}
	return nil, false
}

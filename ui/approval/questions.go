package approval

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Ask is one tool call's question, as the core's broker holds it until
// someone answers it, its turn ends, or nobody shows its session.
type Ask struct {
	id          uint64
	sid         string // the session whose turn asks
	root        string // the folder the call works in (a worktree's, in a worktree session)
	projectRoot string // the project's folder, which keys its approval rules
	req         events.Approval
	diff        preview // what a write or edit would change (diffFor), computed off the UI goroutine
}

// NewAsk is the question the broker put, with the diff of the write or
// edit it asks about. It reads files: call it off the UI goroutine (the
// chat does, as its events arrive).
func NewAsk(v events.Asked) *Ask {
	return &Ask{id: v.ID, sid: v.SessionID, root: v.Root, projectRoot: v.ProjectRoot, req: v.Request, diff: diffFor(v.Root, v.Request)}
}

// Questions are the approval dialogs a chat has open, oldest first: each
// is a layer stacked over the chat, as other dialogs are, until the user
// answers it here, another program answers it, or its turn ends.
type Questions struct {
	ui    *common.UI
	sub   *events.Subscription // the program's own: answers go through it
	rules *approvals.Store
	ctx   context.Context
	open  []*Dialog
}

// NewQuestions puts questions to the user through ui and answers them as
// the program subscribed with sub; "always" answers keep their rule in
// rules. ctx is the program's: a rule being saved stops with it.
func NewQuestions(ctx context.Context, ui *common.UI, sub *events.Subscription, rules *approvals.Store) *Questions {
	return &Questions{ui: ui, sub: sub, rules: rules, ctx: ctx}
}

// Show opens the dialog for a tool call of the open session sid. The
// broker sends only the open session's questions; one that was queued as
// the user left its session is not shown (the broker denies it if no
// other program shows that session), nor one already open.
func (q *Questions) Show(a *Ask, sid, project string) tea.Cmd {
	if a.sid != sid || sid == "" {
		return nil
	}
	for _, d := range q.open {
		if d.ask.id == a.id {
			return nil
		}
	}
	d := newDialog(q.ui, a, project, q.answer)
	q.open = append(q.open, d)
	return q.ui.Push(d)
}

// answer closes an approval dialog and sends the user's answer to the
// core; other programs showing the session close theirs. An "always"
// answer first saves its rule (off the update loop), so the next call it
// covers runs without asking; a rule that cannot be saved still allows
// this call, once, and says why.
func (q *Questions) answer(d *Dialog, ans events.Answer) tea.Cmd {
	q.drop(d.ask.id)
	answered := "that question was already answered in another window or withdrawn"
	if ans.Always == "" {
		if !q.sub.Answer(d.ask.id, ans) {
			return common.Notice("%s", answered)
		}
		return nil
	}
	rules, a, sub, ctx := q.rules, d.ask, q.sub, q.ctx
	rule := approvals.Rule{Tool: a.req.Tool, Pattern: ans.Always}
	return func() tea.Msg {
		err := rules.Add(ctx, a.projectRoot, rule)
		var copyErr *approvals.CopyError
		if err != nil && !errors.As(err, &copyErr) {
			ans.Always = "" // allowed once: the transcript must not say "always"
		}
		if !sub.Answer(a.id, ans) {
			return common.NoticeMsg{Text: answered}
		}
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return nil
	}
}

// mine reports whether this program gave the answer r reports.
func (q *Questions) mine(r events.Resolved) bool { return r.By == q.sub.ID() }

// Gone closes the dialog of a question that ended elsewhere and returns
// what the transcript says of how it ended ("" when nothing is said).
func (q *Questions) Gone(r events.Resolved) string {
	if r.By != 0 && q.mine(r) && r.Answer.Always != "" {
		// Said in the transcript, not the status bar: the turn's end
		// clears notices, and this one says where the rule can be undone.
		return "always allowed in this project: " + common.VisibleLine(r.Answer.Always) + " (Settings lists the rules)"
	}
	if !q.drop(r.ID) {
		return "" // answered here, or never shown
	}
	text := "the approval question was withdrawn: its turn ended"
	switch {
	case r.By != 0 && !q.mine(r) && r.Answer.Allow && r.Answer.Always != "":
		text = "always allowed in this project in another window: " + common.VisibleLine(r.Answer.Always)
	case r.By != 0 && !q.mine(r) && r.Answer.Allow && r.Answer.ForSession:
		text = "allowed for this session in another window"
	case r.By != 0 && !q.mine(r) && r.Answer.Allow:
		text = "approved in another window"
	case r.By != 0 && !q.mine(r) && r.Answer.Reason != "":
		text = "denied in another window: " + common.VisibleLine(r.Answer.Reason)
	case r.By != 0 && !q.mine(r):
		text = "denied in another window"
	case r.Unattended:
		text = "the approval question was denied: no window shows its session"
	}
	return text
}

// drop closes the dialog of question id and reports whether one was
// open.
func (q *Questions) drop(id uint64) bool {
	for i, d := range q.open {
		if d.ask.id == id {
			q.open = append(q.open[:i:i], q.open[i+1:]...)
			q.ui.Close(d)
			return true
		}
	}
	return false
}

// CloseAll closes every open approval dialog here. The questions stay
// with the core: another program showing the session may still answer
// them, and when none does, leaving the session denies them.
func (q *Questions) CloseAll() {
	for _, d := range append([]*Dialog(nil), q.open...) {
		q.drop(d.ask.id)
	}
}

package extdialog

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Questions are the extension dialogs a chat has open, oldest first:
// each is a layer stacked over the chat until the user answers it here,
// another program answers it, or the core withdraws it (its timeout, the
// extension or its runtime gone).
type Questions struct {
	ui   *common.UI
	sub  *events.Subscription // the program's own: answers go through it
	open []*Dialog
}

// NewQuestions puts questions to the user through ui and answers them as
// the program subscribed with sub.
func NewQuestions(ui *common.UI, sub *events.Subscription) *Questions {
	return &Questions{ui: ui, sub: sub}
}

// Show opens the dialog for question a (a.Dialog set) unless it is open
// already. A method pi-tui cannot ask is cancelled at once, and the
// returned text says so ("" otherwise).
func (q *Questions) Show(a events.Asked) (tea.Cmd, string) {
	if a.Dialog == nil {
		return nil, ""
	}
	for _, d := range q.open {
		if d.id == a.ID {
			return nil, ""
		}
	}
	if !Supported(a.Dialog.Method) {
		q.sub.Reply(a.ID, events.DialogReply{Cancelled: true})
		return nil, "an extension asked with " + common.VisibleLine(a.Dialog.Method) + ", which pi-tui cannot show: cancelled"
	}
	d := New(q.ui, a.ID, *a.Dialog, q.reply)
	q.open = append(q.open, d)
	return q.ui.Push(d), ""
}

// reply closes a dialog and sends the answer to the core; other programs
// showing the session close theirs.
func (q *Questions) reply(d *Dialog, r events.DialogReply) tea.Cmd {
	q.drop(d.id)
	if !q.sub.Reply(d.id, r) {
		return common.Notice("%s", "that question was already answered in another window or withdrawn")
	}
	return nil
}

// Gone closes the dialog of a question that ended elsewhere and returns
// what to tell the user of how it ended ("" when it was answered here,
// or was no dialog of this chat).
func (q *Questions) Gone(r events.Resolved) string {
	d := q.find(r.ID)
	if d == nil {
		return ""
	}
	q.drop(r.ID)
	what := "the extension's question"
	if t := common.VisibleLine(d.q.Title); t != "" {
		what += " “" + ansi.Truncate(t, 60, "…") + "”"
	}
	switch {
	case r.By != 0 && r.By != q.sub.ID():
		return what + " was answered in another window"
	case r.Unattended:
		return what + " was cancelled: no window shows its session"
	case d.q.Timeout > 0:
		return what + " closed unanswered: its time ran out, or the extension withdrew it"
	}
	return what + " was withdrawn by the extension (or its runtime ended)"
}

func (q *Questions) find(id uint64) *Dialog {
	for _, d := range q.open {
		if d.id == id {
			return d
		}
	}
	return nil
}

// drop closes the dialog of question id and reports whether one was
// open.
func (q *Questions) drop(id uint64) bool {
	for i, d := range q.open {
		if d.id == id {
			q.open = append(q.open[:i:i], q.open[i+1:]...)
			d.closed = true
			q.ui.Close(d)
			return true
		}
	}
	return false
}

// CloseAll closes every open dialog here. The questions stay with the
// core: another program showing the session may still answer them, and
// when none does, the core cancels them.
func (q *Questions) CloseAll() {
	for _, d := range append([]*Dialog(nil), q.open...) {
		q.drop(d.id)
	}
}

package common

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// QuietPeriod is how long the keyboard must rest before a dialog that a
// background event opened (an approval) takes keys: long enough that a
// key typed as the dialog appeared, meant for the text beneath, cannot
// answer it; short enough that a deliberate answer is not kept waiting.
const QuietPeriod = 400 * time.Millisecond

// QuietMsg asks dialogs holding their keys to look at the clock again.
// Owner is the Quiet whose timer sent it (only that one sets a new timer);
// a QuietMsg without owner, as a test sends after moving its clock,
// just makes every holding dialog check.
type QuietMsg struct{ Owner *Quiet }

// Quiet holds a dialog's keys until no key has arrived for QuietPeriod,
// counted from the later of the dialog's opening and the last key the
// program saw, so a user in mid-sentence is protected and so is one who
// starts typing just as the dialog appears.
type Quiet struct {
	ui     *UI
	opened time.Time
	ready  bool
}

// NewQuiet starts the quiet period of a dialog opening now.
func NewQuiet(ui *UI) *Quiet { return &Quiet{ui: ui, opened: ui.Now()} }

// Holding reports whether keys are still ignored. It reads the clock, so
// a key arriving after the rest is taken even before the timer said so.
func (q *Quiet) Holding() bool {
	if !q.ready && q.left() <= 0 {
		q.ready = true
	}
	return !q.ready
}

func (q *Quiet) left() time.Duration {
	since := q.opened
	if k := q.ui.lastKey; k.After(since) {
		since = k
	}
	return QuietPeriod - q.ui.Now().Sub(since)
}

// Start returns the timer that ends the period (call it from Init).
func (q *Quiet) Start() tea.Cmd { return q.timer(QuietPeriod) }

func (q *Quiet) timer(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return QuietMsg{Owner: q} })
}

// Update handles a QuietMsg: when the keyboard has rested the dialog is
// ready; otherwise its own timer is set again for the time left.
func (q *Quiet) Update(msg QuietMsg) tea.Cmd {
	if !q.Holding() || msg.Owner != q {
		return nil
	}
	return q.timer(q.left())
}

// Guarded is a layer that ignores keys for a while after a background
// event opened it. While it holds, the shell hands typed text to what is
// beneath (the user was typing there) and every other key to the layer,
// which ignores it and says so.
type Guarded interface {
	Holding() bool
}

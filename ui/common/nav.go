package common

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// UI is what every screen of one program shares: its styles, its
// navigation, its clock and its life. An SSH session has its own.
type UI struct {
	*Styles
	Nav *Nav
	// Now is the program's clock (tests move a fake one).
	Now func() time.Time
	// Ctx is the program's life: the work a screen starts (a load, a
	// save, a lookup) runs in it, so it stops when the program ends (an
	// SSH client leaving) instead of running on for the process. It is
	// kept here because a Bubble Tea command takes no context; the shell
	// sets it and cancels it when the program closes.
	Ctx context.Context
	// Home is the user's home folder, which dialogs write as ~ ("" when
	// unknown: paths are shown as they are).
	Home string
	// Keys are the shell's keys, which it handles; a screen names some
	// of them (the command palette) in its hint line.
	Keys GlobalKeys
	// lastKey is when the program last saw a key, for QuietPeriod.
	lastKey time.Time
}

// NewUI returns the shared state for one program.
func NewUI(st *Styles) *UI {
	// A screen built on its own (a test of one screen) lives as long as
	// the process until a shell gives it the program's context.
	return &UI{Styles: st, Nav: &Nav{}, Now: time.Now, Ctx: context.Background(), Keys: NewGlobalKeys()}
}

// KeySeen records that a key arrived now; the shell calls it for every
// key, after routing it.
func (u *UI) KeySeen() { u.lastKey = u.Now() }

// Nav records the layers a screen opens or closes while it handles a
// message. The shell applies them before the next message, so a key typed
// right after the one that opened a dialog reaches that dialog: opening a
// layer is not a command that could arrive late.
type Nav struct{ ops []NavOp }

// NavOp is one recorded push or close.
type NavOp struct{ Push, Close Layer }

// Push opens l on top of the stack.
func (n *Nav) Push(l Layer) { n.ops = append(n.ops, NavOp{Push: l}) }

// Close removes l from the stack.
func (n *Nav) Close(l Layer) { n.ops = append(n.ops, NavOp{Close: l}) }

// Drain returns and forgets the recorded operations.
func (n *Nav) Drain() []NavOp {
	ops := n.ops
	n.ops = nil
	return ops
}

// Push opens l now and returns no command, for use in return statements.
func (u *UI) Push(l Layer) tea.Cmd { u.Nav.Push(l); return nil }

// Close removes l now and returns no command.
func (u *UI) Close(l Layer) tea.Cmd { u.Nav.Close(l); return nil }

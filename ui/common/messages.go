package common

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// CloseMsg asks the shell to remove a layer from a command, after I/O.
// It names the layer, so a late close cannot remove the one beneath.
// Screens reacting to a key use UI.Close instead, which acts at once.
type CloseMsg struct{ Layer Layer }

// PushMsg asks the shell to open a layer from a command, after I/O.
// Screens reacting to a key use UI.Push instead, which acts at once.
type PushMsg struct{ Layer Layer }

// NoticeMsg shows a one-line notice in the status bar.
type NoticeMsg struct {
	Text  string
	Error bool
}

// Notice returns a command showing text in the status bar.
func Notice(format string, args ...any) tea.Cmd {
	text := fmt.Sprintf(format, args...)
	return func() tea.Msg { return NoticeMsg{Text: text} }
}

// WithdrawMsg takes a notice back: the status bar clears it if it still
// shows one of Texts. A turn's end withdraws what the turn said
// ("aborting…"), never a notice something else said meanwhile (a key the
// user pressed a moment before was refused, and they must read why).
type WithdrawMsg struct{ Texts []string }

// Withdraw returns a command taking back the notices texts.
func Withdraw(texts ...string) tea.Cmd {
	return func() tea.Msg { return WithdrawMsg{Texts: texts} }
}

// Failure returns a command showing err in the status bar as an error.
func Failure(err error) tea.Cmd {
	return func() tea.Msg { return NoticeMsg{Text: err.Error(), Error: true} }
}

// ProjectsChangedMsg tells screens that projects or their memory changed
// and lists should be reloaded.
type ProjectsChangedMsg struct{}

// Layer is a page or dialog on the shell's stack. The top layer gets keys
// first; a full-screen layer hides the tabs below it.
type Layer interface {
	Update(msg tea.Msg) (Layer, tea.Cmd)
	View(width, height int) string
	// Title names the layer in the header.
	Title() string
	// Help lists the layer's keys, in columns, for the help line (first
	// column) and the ? screen (all of them).
	Help() [][]key.Binding
	// FullScreen reports whether the layer takes the whole body (a page)
	// rather than floating over it (a dialog).
	FullScreen() bool
	// Unsaved says what would be lost if the program quit now, as the
	// start of a sentence ending "would be lost": only what is not saved
	// ("Unsaved changes to ~/src/api/AGENTS.md"); "" when nothing would be.
	Unsaved() string
	// CapturesText reports whether printable keys go to a text field, so
	// the shell must not treat them as commands.
	CapturesText() bool
}

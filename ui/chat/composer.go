package chat

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/skills"
)

// composer is where a message is written: the input (input.go), the
// messages sent for ↑ and ↓, and the completion menu of /commands and
// @files (complete.go, completefolders.go) with the session's commands
// it offers (commands.go). It keeps its own state, takes the keys the
// chat leaves to it and the menu's messages, and draws the menu and the
// input; what the user sends it hands back to the chat (key), which
// decides whether it is a command, waits its turn or goes.
type composer struct {
	*scope
	keys *Keys // the chat's: Send, Newline, Expand, HistPrev, HistNext are the composer's
	// rts and pi list the session's commands and expand a typed one: the
	// runtimes' own skills and templates, or pi's (commandRuntime,
	// piCommands).
	rts commandRuntime
	pi  piCommands
	env func(string) string

	input   *input
	sent    history          // the messages sent, for ↑ and ↓ (input.go)
	cmds    []skills.Command // the session's skills and templates (commands.go)
	cmdWarn []string         // skill and template files skipped
	comp    completer        // the /command and @file menu (complete.go)
}

func newComposer(s *scope, keys *Keys, rts commandRuntime, pi piCommands, env func(string) string) *composer {
	return &composer{scope: s, keys: keys, rts: rts, pi: pi, env: env, input: newInput(s.ui)}
}

// fit sizes the input for the chat's size.
func (in *composer) fit() { in.input.fit(in.width, in.height) }

// rows is how many rows the input takes.
func (in *composer) rows() int { return in.input.rows(in.height) }

// set replaces the input's text with s, text from elsewhere (a message
// queued, refused, forked or offered by an extension), as one edit.
func (in *composer) set(s string) {
	in.input.SetValue(s)
	in.fit()
}

// empty reports whether nothing is typed.
func (in *composer) empty() bool { return in.input.Len() == 0 }

// restore puts back what the user typed when it could not be sent,
// unless they have typed something new meanwhile.
func (in *composer) restore(text string) {
	if in.empty() {
		in.set(text)
	}
}

// open reports whether the completion menu is open.
func (in *composer) open() bool { return in.comp.kind != menuNone }

// update takes the composer's messages: the session's commands and the
// project's file lists.
func (in *composer) update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case commandsMsg:
		if msg.sid == in.sid {
			in.cmds, in.cmdWarn = msg.cmds, msg.warn
			in.comp.shadowed, in.comp.piErr = msg.shadowed, msg.piErr
			return in.refreshMenu(), true
		}
		return nil, true
	case filesMsg:
		return in.filesLoaded(msg), true
	}
	return nil, false
}

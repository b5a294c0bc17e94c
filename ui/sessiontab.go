package ui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/chat"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/sessionlist"
)

// sessionFocus is which of the Session tab's two models has the keys and
// the screen.
type sessionFocus int

const (
	onSessionList sessionFocus = iota // the project's sessions (or the note that none is open)
	onChat                            // the open session
)

// sessionTab is the Session tab: the open project's session list and the
// chat with one of its sessions, side by side in one tab and routed by a
// typed focus. The chat moves the focus (chat.Tab.Show): to itself when
// a session opens, back to the list when it is left.
type sessionTab struct {
	// ctx is the program's: the list's reads, the chat's commands and its
	// subscription to the runtime end with it (Close).
	ctx    context.Context
	cancel context.CancelFunc
	list   *sessionlist.Model
	chat   *chat.Model
	focus  sessionFocus
	// opening is set while a session the list asked for (enter, n, w) is
	// being opened, and held keeps the keys typed meanwhile: they were
	// typed for the chat about to show (n then /model at once), not for
	// the list still on screen, and reach the chat once it shows.
	opening bool
	held    []tea.KeyMsg
}

// maxHeld bounds the keys held while a session opens.
const maxHeld = 256

func newSessionTab(opts Options, st *common.UI, markdown func(string, int) (string, error)) *sessionTab {
	t := &sessionTab{}
	// The program's context (st.Ctx), ended early by Close, which aborts
	// a turn still running.
	t.ctx, t.cancel = context.WithCancel(st.Ctx)
	h, rts := opts.Host, opts.Host.Runtimes
	t.list = sessionlist.New(sessionlist.Deps{Ctx: t.ctx, Store: h.Sessions, Sessions: rts.Sessions(), Worktrees: h.Worktrees, UI: st}, sessionlist.Actions{
		Open:          func(id string) tea.Cmd { return t.opens(t.chat.Open(id)) },
		New:           func() tea.Cmd { return t.opens(t.chat.New()) },
		NewInWorktree: func() tea.Cmd { return t.opens(t.chat.NewInWorktree()) },
		Export:        func(id string) tea.Cmd { return t.chat.ExportSession(id, "") },
		Import:        func() tea.Cmd { return t.chat.ImportSessions() },
	})
	// The runtime manager and its parts go to each screen as the small
	// interfaces it defines (docs/adr/0090-interfaces-where-consumed.md).
	t.chat = chat.New(chat.Deps{Ctx: t.ctx, Host: h, Events: h.Events, Runtime: rts, Sessions: rts.Sessions(), Catalogue: rts.Catalogue(), Plans: rts.Plans(),
		Store: h.Sessions, Worktrees: h.Worktrees, Review: h.Review, UI: st, Markdown: markdown, Env: opts.Env},
		chat.Tab{List: t.list, Show: t.show})
	return t
}

// show moves the focus to the chat or to the list.
func (t *sessionTab) show(onChatNow bool) {
	t.focus = onSessionList
	if onChatNow {
		t.focus = onChat
	}
}

// Init starts the chat's delivery of runtime events and the list's
// reconciliation of session counts.
func (t *sessionTab) Init() tea.Cmd { return tea.Batch(t.chat.Init(), t.list.Init()) }

// Close releases what the tab holds when its program ends: the chat's
// questions, a running turn and the runtime subscription.
func (t *sessionTab) Close() {
	t.chat.Close()
	t.cancel()
}

// Open shows project p's sessions, leaving the open session (refused
// while the agent works in it).
func (t *sessionTab) Open(p registry.Project) tea.Cmd {
	if err := t.chat.SetProject(p); err != nil {
		return common.Failure(err)
	}
	t.focus = onSessionList
	return t.list.Open(p)
}

// Continue shows project p's sessions and reopens the latest one, as
// `pi -c` does (`pi-tui -c`); a project without sessions shows its empty
// list.
func (t *sessionTab) Continue(p registry.Project) tea.Cmd {
	return tea.Batch(t.Open(p), t.chat.OpenLatest(p.ID))
}

// SetSize sets the area the tab draws in.
func (t *sessionTab) SetSize(w, h int) {
	t.list.SetSize(w, h)
	t.chat.SetSize(w, h)
}

// opens marks a session as being opened by cmd (nil: nothing opens).
func (t *sessionTab) opens(cmd tea.Cmd) tea.Cmd {
	if cmd != nil {
		t.opening, t.held = true, nil
	}
	return cmd
}

// CapturesText reports whether keys go to a text field: the chat's input,
// or the list's filter, or the chat about to show.
func (t *sessionTab) CapturesText() bool {
	return t.focus == onChat || t.list.Filtering() || t.opening
}

// Completing reports whether the chat's completion menu is open.
func (t *sessionTab) Completing() bool { return t.focus == onChat && t.chat.Completing() }

// ClaimsKey reports whether the chat takes a key the shell would
// otherwise use (shift+tab).
func (t *sessionTab) ClaimsKey(msg tea.KeyMsg) bool {
	return t.focus == onChat && t.chat.ClaimsKey(msg)
}

// Busy reports whether the agent is working, so quitting asks first.
func (t *sessionTab) Busy() bool { return t.chat.Busy() }

// Update gives a key to the focused model and every other message to
// both; each ignores what is not its own.
func (t *sessionTab) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		if t.focus == onChat {
			return t.chat.Update(msg)
		}
		if t.opening {
			if len(t.held) < maxHeld {
				t.held = append(t.held, k)
			}
			return nil
		}
		return t.list.Update(msg)
	}
	cmd := tea.Batch(t.list.Update(msg), t.chat.Update(msg))
	if t.opening && chat.IsOpenResult(msg) {
		// Opened (the chat shows) or failed (the list stays): the keys
		// typed meanwhile go where the user now is, in order, now. Their
		// commands run beside the opening's (a Sequence would wait for
		// the opening's watches, which end only with the session).
		t.opening = false
		held := t.held
		t.held = nil
		cmds := []tea.Cmd{cmd}
		for _, k := range held {
			cmds = append(cmds, t.Update(k))
		}
		return tea.Batch(cmds...)
	}
	return cmd
}

// View draws the focused model.
func (t *sessionTab) View() string {
	if t.focus == onChat {
		return t.chat.View()
	}
	return t.list.View()
}

// Help lists the focused model's keys.
func (t *sessionTab) Help() [][]key.Binding {
	if t.focus == onChat {
		return t.chat.Help()
	}
	return t.list.Help()
}

// Effective returns the open session's model and thinking level as its
// next prompt uses them ("" where the defaults apply, both "" on the
// list).
func (t *sessionTab) Effective() (model, thinking string) {
	if t.focus == onChat {
		return t.chat.Effective()
	}
	return "", ""
}

// Engine names the open session's engine and version for the status bar
// ("pi 1.6.0", "builtin"; "" when none is known or no session is open).
func (t *sessionTab) Engine() string {
	if t.focus == onChat {
		return t.chat.Engine()
	}
	return ""
}

// Plan reports whether the open session is in plan mode, for the status
// bar.
func (t *sessionTab) Plan() bool { return t.focus == onChat && t.chat.Plan() }

// RuntimeState is the open session's runtime state for the status bar.
func (t *sessionTab) RuntimeState() string {
	if t.focus == onChat {
		return t.chat.RuntimeState()
	}
	return runtimes.StateNone.String()
}

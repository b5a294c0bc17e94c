// Package reviewview is the Review screen (/changes): a session's file
// changes in order, across turns, with their state, and the keys that
// show a change's diff, undo it, redo it, or undo it and every later one.
package reviewview

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/list"
	"github.com/pi-tui/pi-tui/ui/sessionlist"
)

// Service is what the screen asks of the host (core/review.Service).
type Service interface {
	Changes(ctx context.Context, id string) ([]checkpoints.Change, error)
	Diff(ctx context.Context, c checkpoints.Change) (string, error)
	Undo(ctx context.Context, id string, u checkpoints.Undo) (checkpoints.UndoResult, error)
}

// Keys of the screen.
type Keys struct {
	Diff, Undo, Redo, UndoFrom, Close key.Binding
}

// DefaultKeys are the screen's keys; the README's key table lists them.
func DefaultKeys() Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return Keys{
		Diff:     b("enter/ctrl+o", "show the change's diff", "enter", "ctrl+o"),
		Undo:     b("u", "undo the change", "u"),
		Redo:     b("r", "redo an undone change", "r"),
		UndoFrom: b("U", "undo the change and every later one (files back to before its message)", "U"),
		Close:    b("esc/q", "close", "esc", "q"),
	}
}

// Page is the Review screen of one session.
type Page struct {
	common.PageLayer
	ui   *common.UI
	ctx  context.Context
	svc  Service
	sid  string
	busy func() bool // the session's agent is working: undo waits
	keys Keys
	list list.List[checkpoints.Change]
	err  string
	ok   bool // loaded
}

// New returns the screen and the command that loads the changes.
func New(ui *common.UI, ctx context.Context, svc Service, sid string, busy func() bool) (*Page, tea.Cmd) {
	p := &Page{ui: ui, ctx: ctx, svc: svc, sid: sid, busy: busy, keys: DefaultKeys(), list: list.New[checkpoints.Change](list.DefaultKeyMap())}
	return p, p.load()
}

type loadedMsg struct {
	p   *Page
	cs  []checkpoints.Change
	err error
}

type doneMsg struct {
	p   *Page
	u   checkpoints.Undo
	res checkpoints.UndoResult
	err error
}

func (p *Page) load() tea.Cmd {
	svc, ctx, sid := p.svc, p.ctx, p.sid
	return func() tea.Msg {
		cs, err := svc.Changes(ctx, sid)
		return loadedMsg{p: p, cs: cs, err: err}
	}
}

// Update implements common.Layer.
func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.p != p {
			return p, nil
		}
		p.ok = true
		if msg.err != nil {
			p.err = msg.err.Error()
			return p, nil
		}
		p.err = ""
		first := p.list.Len() == 0
		p.list.SetItems(msg.cs)
		if first {
			p.list.Last() // the latest change: what one reviews first
		}
		return p, nil
	case doneMsg:
		if msg.p != p {
			return p, nil
		}
		return p, p.done(msg)
	case tea.KeyMsg:
		k := p.keys
		switch {
		case key.Matches(msg, k.Close):
			return p, p.ui.Close(p)
		case p.list.Update(msg):
			return p, nil
		}
		c, ok := p.list.Selected()
		if !ok {
			return p, nil
		}
		switch {
		case key.Matches(msg, k.Diff):
			return p, p.diff(c)
		case key.Matches(msg, k.Undo):
			return p, p.run(c, checkpoints.Undo{Changes: []int{c.N}})
		case key.Matches(msg, k.Redo):
			return p, p.run(c, checkpoints.Undo{Changes: []int{c.N}, Redo: true})
		case key.Matches(msg, k.UndoFrom):
			if c.Entry == "" {
				return p, common.Failure(errors.New("this change names no entry of the session; undo it alone with u"))
			}
			return p, p.run(c, checkpoints.Undo{To: c.Entry})
		}
	}
	return p, nil
}

func (p *Page) diff(c checkpoints.Change) tea.Cmd {
	svc, ctx, ui := p.svc, p.ctx, p.ui
	return func() tea.Msg {
		text, err := svc.Diff(ctx, c)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return common.PushMsg{Layer: sessionlist.NewDiffPage(ui, fmt.Sprintf("change %d · %s", c.N, c.Path), text)}
	}
}

// run undoes or redoes, unless the change is a parent's or the agent is
// at work (a turn running changes files under the guard's feet).
func (p *Page) run(c checkpoints.Change, u checkpoints.Undo) tea.Cmd {
	if c.State == checkpoints.StateParent {
		return common.Failure(fmt.Errorf("change %d was made in the session this one was forked from (%s); undo it there", c.N, short(c.Session)))
	}
	if p.busy != nil && p.busy() {
		return common.Failure(errors.New("the agent is working in this session: undo once its turn is over (esc in the chat aborts it)"))
	}
	svc, ctx, sid := p.svc, p.ctx, p.sid
	return func() tea.Msg {
		res, err := svc.Undo(ctx, sid, u)
		return doneMsg{p: p, u: u, res: res, err: err}
	}
}

// done says what an undo did, or offers to force one refused because a
// file changed since.
func (p *Page) done(msg doneMsg) tea.Cmd {
	verb := "undid"
	if msg.u.Redo {
		verb = "redid"
	}
	var ce *checkpoints.ConflictError
	switch {
	case errors.As(msg.err, &ce) && ce.Forceable() && !msg.u.Force:
		var files []string
		for _, c := range ce.Conflicts {
			files = append(files, c.Path+" ("+c.Reason+")")
		}
		forced := msg.u
		forced.Force = true
		body := "These files are no longer as the change left them:\n  " + strings.Join(files, "\n  ") +
			"\n\nOverwrite them anyway? What is in them now is lost."
		return p.ui.Push(dialog.NewConfirm(p.ui, "Overwrite later changes?", body, func() tea.Cmd {
			svc, ctx, sid := p.svc, p.ctx, p.sid
			return func() tea.Msg {
				res, err := svc.Undo(ctx, sid, forced)
				return doneMsg{p: p, u: forced, res: res, err: err}
			}
		}, "o"))
	case msg.err != nil:
		return tea.Batch(common.Failure(msg.err), p.load())
	}
	return tea.Batch(common.Notice("%s %s: %s", verb, common.Plural(len(msg.res.Changes), "change"), strings.Join(msg.res.Files, ", ")), p.load())
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// View implements common.Layer.
func (p *Page) View(w, h int) string {
	st := p.ui
	var b strings.Builder
	b.WriteString(st.Title.Render("Review · the session's file changes") + st.Dim.Render("  f1 help · esc closes") + "\n")
	switch {
	case p.err != "":
		b.WriteString(st.Error.Render(ansi.Wrap(common.VisibleLine(p.err), max(w, 20), "")))
		return b.String()
	case !p.ok:
		b.WriteString(st.Dim.Render("loading…"))
		return b.String()
	case p.list.Len() == 0:
		b.WriteString(st.Dim.Render(ansi.Wrap("No file changes recorded in this session yet: each tool call that changes files (write, edit, bash, an extension's tool) adds its files here. Not recorded: .git and the files git ignores.", max(w, 20), "")))
		return b.String()
	}
	b.WriteString(st.Dim.Render("Not recorded: .git and the files git ignores.") + "\n")
	p.list.SetLines(max(h-4, 1))
	cur := p.list.Cursor()
	for i, c := range p.list.Window() {
		count := fmt.Sprintf("+%d −%d", c.Added, c.Removed)
		if c.Binary {
			count = "binary"
		}
		state := c.State
		if !c.Kept {
			state += ", not undoable"
		}
		line := fmt.Sprintf("%3d  %-8s %s  %s  %s  %s", c.N, state, letter(c.Status), common.VisibleLine(c.Path), count, c.Tool)
		line = ansi.Truncate(line, max(w-2, 20), "…")
		switch {
		case i == cur:
			b.WriteString(st.Selected.Render("▸ "+line) + "\n")
		case c.State != checkpoints.StateActive:
			b.WriteString(st.Dim.Render("  "+line) + "\n")
		default:
			b.WriteString("  " + line + "\n")
		}
	}
	k := p.keys
	b.WriteString(st.Dim.Render(ansi.Truncate(strings.Join([]string{k.Diff.Help().Key + " diff", "u undo", "r redo", "U undo from here on", "esc close"}, " · "), max(w, 20), "")))
	return b.String()
}

func letter(status string) string {
	switch status {
	case checkpoints.StatusAdded:
		return "A"
	case checkpoints.StatusDeleted:
		return "D"
	}
	return "M"
}

// Title implements common.Layer.
func (p *Page) Title() string { return "Review" }

// Help implements common.Layer.
func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{p.list.Keys.Bindings(), {k.Diff, k.Undo, k.Redo, k.UndoFrom, k.Close}}
}

var _ common.Layer = (*Page)(nil)

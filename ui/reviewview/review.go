// Package reviewview is the Review screen (/changes): a session's file
// changes in order, across turns (each turn under the message that
// started it), with their state, and the keys that show a change's diff,
// undo it, redo it, or undo it and every later one. Undo is guarded by
// the core: a refusal names the files on the screen, and o then
// overwrites them after a confirmation. The screen does no I/O itself:
// every read and undo is a command.
package reviewview

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/diffview"
	"github.com/pi-tui/pi-tui/ui/list"
)

// Service is what the screen asks of the host (core/review.Service).
type Service interface {
	Changes(ctx context.Context, id string) ([]checkpoints.Change, error)
	Diff(ctx context.Context, c checkpoints.Change) (string, error)
	Undo(ctx context.Context, id string, u checkpoints.Undo) (checkpoints.UndoResult, error)
}

// Deps are what the screen needs from the chat that opens it.
type Deps struct {
	Ctx     context.Context
	UI      *common.UI
	Service Service
	// Session is the session reviewed.
	Session string
	// Busy says the session's agent is working: its turn changes files
	// under the guard's feet, so undo and redo wait for it.
	Busy func() bool
	// Turns says, for entries that made changes, the turn each belongs
	// to, read off the update loop: a turn's tool calls may come in
	// several assistant entries, and all are listed under one heading.
	// nil, or an entry it leaves out, shows the entry as a turn of its
	// own, without its message.
	Turns func(ctx context.Context, entries []string) map[string]Turn
}

// Turn is the turn an entry belongs to: the message of the user's that
// started it (its ID, and the heading: "you: …").
type Turn struct{ ID, Heading string }

// Keys of the screen.
type Keys struct {
	Nav                                      list.KeyMap
	Diff, Undo, Redo, UndoFrom, Force, Close key.Binding
}

// DefaultKeys are the screen's keys; the key table in docs/keys.md lists them.
func DefaultKeys() Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return Keys{
		Nav:      list.DefaultKeyMap(),
		Diff:     b("enter/ctrl+o", "diff", "enter", "ctrl+o"),
		Undo:     b("u", "undo", "u"),
		Redo:     b("r", "redo", "r"),
		UndoFrom: b("U", "undo it and every later one", "U"),
		Force:    b("o", "overwrite after a refusal", "o"),
		Close:    b("esc/q", "close", "esc", "q"),
	}
}

// row is one line of the list: a turn's heading (the message that
// started it), or one change.
type row struct {
	heading string
	c       checkpoints.Change
}

// Page is the Review screen of one session.
type Page struct {
	common.PageLayer
	d    Deps
	keys Keys
	list list.List[row]
	// seq numbers the loads: a slower, older one never replaces a newer.
	seq    int
	loaded bool
	err    string // the list could not be read
	// say is the last action's result (or why it was refused); bad says
	// it is an error.
	say string
	bad bool
	// refused is the undo a conflict refused, when Force would get past
	// it, with the files it named; o offers to force it.
	refused *refusal
}

// refusal is an undo the core refused because files changed since.
type refusal struct {
	u     checkpoints.Undo
	files []string // "path (reason)"
}

// New returns the screen of session d.Session; pushing it loads the
// changes (Init).
func New(d Deps) *Page {
	p := &Page{d: d, keys: DefaultKeys()}
	p.list = list.New[row](p.keys.Nav)
	p.list.Selectable = func(r row) bool { return r.heading == "" }
	return p
}

// StaleMsg says session SessionID's changes were undone or redone
// elsewhere (another program, /undo): a screen showing them reads them
// again.
type StaleMsg struct{ SessionID string }

// Stale returns the command that tells an open screen to read again.
func Stale(sessionID string) tea.Cmd {
	return func() tea.Msg { return StaleMsg{SessionID: sessionID} }
}

type loadedMsg struct {
	p     *Page
	seq   int
	cs    []checkpoints.Change
	turns map[string]Turn
	err   error
}

type doneMsg struct {
	p   *Page
	u   checkpoints.Undo
	res checkpoints.UndoResult
	err error
}

// Init loads the changes.
func (p *Page) Init() tea.Cmd { return p.load() }

func (p *Page) load() tea.Cmd {
	p.seq++
	d, seq := p.d, p.seq
	return func() tea.Msg {
		cs, err := d.Service.Changes(d.Ctx, d.Session)
		msg := loadedMsg{p: p, seq: seq, cs: cs, err: err}
		if err == nil && d.Turns != nil {
			var entries []string
			seen := map[string]bool{}
			for _, c := range cs {
				if c.Entry != "" && !seen[c.Entry] {
					seen[c.Entry] = true
					entries = append(entries, c.Entry)
				}
			}
			msg.turns = d.Turns(d.Ctx, entries)
		}
		return msg
	}
}

// rowsOf lays the changes out under their turns' headings: a heading
// before the first change of each turn (and again where the list leaves
// a turn and comes back to it, as it follows the changes' order).
func rowsOf(cs []checkpoints.Change, turns map[string]Turn) []row {
	var out []row
	prev := "\x00"
	for _, c := range cs {
		t, ok := turns[c.Entry]
		if !ok {
			t.ID = "entry " + c.Entry // unknown: the entry is its own turn
		}
		// The parent's changes are headed apart: its entries are this
		// session's too, up to the fork.
		key := t.ID
		if c.State == checkpoints.StateParent {
			key += "\x00parent"
		}
		if key != prev {
			prev = key
			h := t.Heading
			if h == "" {
				h = "a turn whose message this session's file does not show"
			}
			if c.State == checkpoints.StateParent {
				h += "  (the session this one was forked from)"
			}
			out = append(out, row{heading: h})
		}
		out = append(out, row{c: c})
	}
	return out
}

// Update implements common.Layer.
func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.p != p || msg.seq != p.seq {
			return p, nil
		}
		p.loaded = true
		if msg.err != nil {
			p.err = msg.err.Error()
			return p, nil
		}
		p.err = ""
		first := p.list.Len() == 0
		p.list.SetItems(rowsOf(msg.cs, msg.turns))
		if first {
			p.list.Last() // the latest change: what one reviews first
		}
		return p, nil
	case StaleMsg:
		if msg.SessionID != p.d.Session {
			return p, nil
		}
		return p, p.load()
	case doneMsg:
		if msg.p != p {
			return p, nil
		}
		return p, p.done(msg)
	case tea.KeyMsg:
		return p, p.key(msg)
	}
	return p, nil
}

func (p *Page) key(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	switch {
	case key.Matches(msg, k.Close):
		return p.d.UI.Close(p)
	case p.list.Update(msg):
		return nil
	case key.Matches(msg, k.Force):
		if p.refused == nil {
			return p.tell(true, "nothing to overwrite: o answers a refused undo, after it names the files")
		}
		return p.confirmForce(*p.refused)
	}
	r, ok := p.list.Selected()
	if !ok {
		return nil
	}
	c := r.c
	switch {
	case key.Matches(msg, k.Diff):
		return p.diff(c)
	case key.Matches(msg, k.Undo):
		if why := p.refuse(c, false); why != "" {
			return p.tell(true, "%s", why)
		}
		return p.run(checkpoints.Undo{Changes: []int{c.N}})
	case key.Matches(msg, k.Redo):
		if why := p.refuse(c, true); why != "" {
			return p.tell(true, "%s", why)
		}
		return p.run(checkpoints.Undo{Changes: []int{c.N}, Redo: true})
	case key.Matches(msg, k.UndoFrom):
		return p.undoFrom(c)
	}
	return nil
}

// tell shows a sentence under the list (an error when bad).
func (p *Page) tell(bad bool, format string, args ...any) tea.Cmd {
	p.say, p.bad = fmt.Sprintf(format, args...), bad
	return nil
}

// refuse says why change c cannot be undone (redone) now, "" when it can
// be asked for: the agent at work, a parent's change, a state that has
// nothing to do, a content that was not kept.
func (p *Page) refuse(c checkpoints.Change, redo bool) string {
	switch {
	case c.State == checkpoints.StateParent:
		return fmt.Sprintf("change %d was made in the session this one was forked from: it is shown here, and can be undone only there", c.N)
	case p.d.Busy != nil && p.d.Busy():
		return "the agent is working in this session: undo and redo wait until its turn is over (or press esc in the chat to abort it)"
	case !redo && c.State == checkpoints.StateUndone:
		return fmt.Sprintf("change %d is undone already (r redoes it)", c.N)
	case redo && c.State == checkpoints.StateActive:
		return fmt.Sprintf("change %d is not undone: there is nothing to redo", c.N)
	case !c.Kept:
		return fmt.Sprintf("change %d's content was not kept (binary over the bound, or past the session's storage bound): it is shown, not undone", c.N)
	}
	return ""
}

// undoFrom asks, then undoes change c and every later one: the files go
// back to how they were before the message that made it.
func (p *Page) undoFrom(c checkpoints.Change) tea.Cmd {
	switch {
	case c.State == checkpoints.StateParent:
		return p.tell(true, "change %d was made in the session this one was forked from: it is shown here, and can be undone only there", c.N)
	case p.d.Busy != nil && p.d.Busy():
		return p.tell(true, "the agent is working in this session: undo and redo wait until its turn is over (or press esc in the chat to abort it)")
	case c.Entry == "":
		return p.tell(true, "change %d names no entry of the session; undo it alone with u", c.N)
	}
	// What the rewind takes back, as far as this list knows: the
	// session's own active changes from the entry's first on.
	var ns []int
	var files []string
	seen := map[string]bool{}
	from := false
	for _, r := range p.list.Items() {
		if r.heading != "" {
			continue
		}
		from = from || r.c.Entry == c.Entry
		if from && r.c.State == checkpoints.StateActive && r.c.Session == p.d.Session {
			ns = append(ns, r.c.N)
			if !seen[r.c.Path] {
				seen[r.c.Path] = true
				files = append(files, r.c.Path)
			}
		}
	}
	if len(ns) == 0 {
		return p.tell(true, "nothing to undo from change %d on: every change since is undone already", c.N)
	}
	body := fmt.Sprintf("%s to %s go back to how they were before the message that made change %d:%s\n\nRefused, naming the files, if any changed since the agent left it; r redoes a change.",
		common.Plural(len(ns), "change"), common.Plural(len(files), "file"), c.N, FileList(files))
	u := checkpoints.Undo{To: c.Entry}
	return p.d.UI.Push(dialog.NewConfirm(p.d.UI, fmt.Sprintf("Undo change %d and every later one?", c.N), body, func() tea.Cmd { return p.run(u) }))
}

// confirmForce asks before writing over the files a refusal named.
func (p *Page) confirmForce(r refusal) tea.Cmd {
	u := r.u
	u.Force = true
	body := "These files are no longer as the agent left them:" + FileList(r.files) + "\n\nOverwrite them anyway? What is in them now is lost."
	return p.d.UI.Push(dialog.NewConfirm(p.d.UI, "Overwrite "+common.Plural(len(r.files), "file")+"?", body, func() tea.Cmd { return p.run(u) }))
}

// FileList names files for a dialog, one a line: the first few, then how
// many more. Their controls are shown, never sent.
func FileList(files []string) string {
	const most = 8
	var b strings.Builder
	for i, f := range files {
		if i == most {
			fmt.Fprintf(&b, "\n  … and %d more", len(files)-most)
			break
		}
		b.WriteString("\n  " + common.VisibleLine(f))
	}
	return b.String()
}

func (p *Page) diff(c checkpoints.Change) tea.Cmd {
	d := p.d
	return func() tea.Msg {
		text, err := d.Service.Diff(d.Ctx, c)
		if err != nil {
			return common.NoticeMsg{Text: fmt.Sprintf("the diff of change %d: %v", c.N, err), Error: true}
		}
		title := fmt.Sprintf("Diff · change %d · %s", c.N, c.Path)
		return common.PushMsg{Layer: diffview.NewPage(d.UI, title, text, "The change left the file's content as it was (a mode or a new empty file).")}
	}
}

// run undoes or redoes u in a command.
func (p *Page) run(u checkpoints.Undo) tea.Cmd {
	if p.d.Busy != nil && p.d.Busy() {
		// The agent started since the key (another program's turn).
		return p.tell(true, "the agent is working in this session: undo and redo wait until its turn is over (or press esc in the chat to abort it)")
	}
	p.refused = nil
	p.tell(false, "%s…", verbing(u))
	d := p.d
	return func() tea.Msg {
		res, err := d.Service.Undo(d.Ctx, d.Session, u)
		return doneMsg{p: p, u: u, res: res, err: err}
	}
}

func verbing(u checkpoints.Undo) string {
	if u.Redo {
		return "redoing"
	}
	return "undoing"
}

// done says what an undo did, or why nothing was changed, and reads the
// changes again.
func (p *Page) done(msg doneMsg) tea.Cmd {
	verb := "undid"
	if msg.u.Redo {
		verb = "redid"
	}
	var ce *checkpoints.ConflictError
	switch {
	case errors.As(msg.err, &ce):
		files := ce.Lines()
		p.tell(true, "nothing was changed: %s", strings.Join(files, "; "))
		if ce.Forceable() && !msg.u.Force {
			p.refused = &refusal{u: msg.u, files: files}
			p.say += " · o overwrites them (asks first)"
		}
	case msg.err != nil:
		p.tell(true, "%s", msg.err.Error())
	default:
		ns := make([]string, len(msg.res.Changes))
		for i, n := range msg.res.Changes {
			ns[i] = fmt.Sprint(n)
		}
		what := common.Plural(len(msg.res.Changes), "change")
		if len(ns) > 0 {
			what += " (" + strings.Join(ns, ", ") + ")"
		}
		p.tell(false, "%s %s: %s", verb, what, strings.Join(msg.res.Files, ", "))
	}
	return p.load()
}

// Title implements common.Layer.
func (p *Page) Title() string { return "Review" }

// Help implements common.Layer.
func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{k.Nav.Bindings(), {k.Diff, k.Undo, k.Redo, k.UndoFrom, k.Force, k.Close}}
}

var _ common.Layer = (*Page)(nil)

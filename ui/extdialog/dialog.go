// Package extdialog puts an extension's question to the user (pi's
// extension_ui_request: select, confirm, input, editor) as a dialog
// stacked over the chat, under the rule approvals follow: a runtime event
// opens it, not the user, so it takes no answer until the keyboard has
// rested (common.Quiet), and text typed as it appears goes on to the
// input beneath. The extension's timeout is shown counting down; the core
// withdraws the question when it passes. Questions holds a chat's open
// dialogs and closes them when the core resolves their questions
// elsewhere.
package extdialog

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/editor"
	"github.com/pi-tui/pi-tui/ui/list"
)

// The methods pi's extensions ask with.
const (
	MethodSelect  = "select"
	MethodConfirm = "confirm"
	MethodInput   = "input"
	MethodEditor  = "editor"
)

// Supported reports whether method is one this package can ask.
func Supported(method string) bool {
	switch method {
	case MethodSelect, MethodConfirm, MethodInput, MethodEditor:
		return true
	}
	return false
}

// Keys are a dialog's keys; the same table drives its handling, its key
// line and the ? screen. Which of them a dialog offers depends on its
// method (Answers).
type Keys struct {
	Choose  key.Binding // select: the highlighted option
	Yes, No key.Binding // confirm
	Submit  key.Binding // input, editor
	Newline key.Binding // editor
	Cancel  key.Binding
	Nav     list.KeyMap // select
}

// NewKeys returns the keys of a dialog asking with method.
func NewKeys(method string) Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := Keys{
		Choose:  b("enter", "choose the highlighted option", "enter"),
		Yes:     b("y", "yes", "y", "Y"),
		No:      b("n", "no", "n", "N"),
		Submit:  b("enter", "send the text", "enter"),
		Newline: b("alt+enter/ctrl+j", "new line", "alt+enter", "ctrl+j"),
		Cancel:  b("esc", "cancel (the extension is told)", "esc"),
		Nav:     list.DefaultKeyMap(),
	}
	off := func(bs ...*key.Binding) {
		for _, x := range bs {
			x.SetEnabled(false)
		}
	}
	switch method {
	case MethodSelect:
		off(&k.Yes, &k.No, &k.Submit, &k.Newline)
	case MethodConfirm:
		off(&k.Choose, &k.Submit, &k.Newline)
		k.Nav = list.KeyMap{}
	case MethodInput:
		off(&k.Choose, &k.Yes, &k.No, &k.Newline)
		k.Nav = list.KeyMap{}
	case MethodEditor:
		off(&k.Choose, &k.Yes, &k.No)
		k.Nav = list.KeyMap{}
	}
	return k
}

// Answers are the keys that answer, in the order the key line shows them.
func (k Keys) Answers() []key.Binding {
	var out []key.Binding
	for _, b := range []key.Binding{k.Choose, k.Yes, k.No, k.Submit, k.Newline, k.Cancel} {
		if b.Enabled() {
			out = append(out, b)
		}
	}
	return out
}

// Dialog is one extension question on the stack. Its text comes from an
// extension, which pi-tui does not control: every title, message and
// option is shown with its control characters made visible, never sent
// to the terminal, and the answer carries the option exactly as the
// extension gave it.
type Dialog struct {
	common.DialogLayer
	ui      *common.UI
	id      uint64
	q       events.Dialog
	keys    Keys
	quiet   *common.Quiet
	opened  time.Time
	ignored int // keys ignored during the quiet period, shown so none vanish unseen
	closed  bool

	options list.List[string] // select
	field   textinput.Model   // input
	buf     *editor.Buffer    // editor
	onReply func(*Dialog, events.DialogReply) tea.Cmd
}

// New returns the dialog for question id; onReply closes it and delivers
// the answer.
func New(ui *common.UI, id uint64, q events.Dialog, onReply func(*Dialog, events.DialogReply) tea.Cmd) *Dialog {
	d := &Dialog{ui: ui, id: id, q: q, keys: NewKeys(q.Method), quiet: common.NewQuiet(ui), opened: ui.Now(), onReply: onReply}
	switch q.Method {
	case MethodSelect:
		d.options = list.New[string](d.keys.Nav)
		d.options.SetItems(q.Options)
	case MethodInput:
		d.field = textinput.New()
		ui.StyleTextInput(&d.field)
		d.field.Placeholder = common.VisibleLine(q.Placeholder)
		d.field.Prompt = "> "
		d.field.Focus()
	case MethodEditor:
		d.buf = editor.New(ui.Cursor, ui.Gutter)
		d.buf.HideEnd()
		d.buf.ShowScrollMarks()
		d.buf.Replace(q.Prefill) // the cursor after it; ctrl+z takes it away
	}
	return d
}

// ID is the question's id, as the broker knows it.
func (d *Dialog) ID() uint64 { return d.id }

// tickMsg redraws the countdown of one dialog each second.
type tickMsg struct{ d *Dialog }

func (d *Dialog) tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{d} })
}

// Init starts the quiet period's timer and, for a question with a
// timeout, the countdown's.
func (d *Dialog) Init() tea.Cmd {
	if d.q.Timeout > 0 {
		return tea.Batch(d.quiet.Start(), d.tick())
	}
	return d.quiet.Start()
}

// Holding reports whether the dialog still ignores keys (common.Guarded).
func (d *Dialog) Holding() bool { return d.quiet.Holding() }

// CapturesText is true for the methods that take text: what is typed,
// once the keyboard has rested, goes into the field.
func (d *Dialog) CapturesText() bool { return d.q.Method == MethodInput || d.q.Method == MethodEditor }

// Left is the time the extension still waits, as the dialog counts it
// (the core, which withdraws the question, keeps its own clock); 0 when
// it set no timeout or the time is up.
func (d *Dialog) Left() time.Duration {
	if d.q.Timeout <= 0 {
		return 0
	}
	return max(d.q.Timeout-d.ui.Now().Sub(d.opened), 0)
}

func (d *Dialog) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case common.QuietMsg:
		return d, d.quiet.Update(msg)
	case tickMsg:
		if msg.d != d || d.closed || d.Left() <= 0 {
			return d, nil
		}
		return d, d.tick()
	case tea.KeyMsg:
		return d, d.key(msg)
	}
	return d, nil
}

func (d *Dialog) key(msg tea.KeyMsg) tea.Cmd {
	k := d.keys
	if d.q.Method == MethodSelect && k.Nav.Matches(msg) {
		// Moving is reading, never answering: allowed at once.
		d.options.Update(msg)
		return nil
	}
	if d.quiet.Holding() {
		d.ignored++
		return nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		return d.reply(events.DialogReply{Cancelled: true})
	case key.Matches(msg, k.Choose):
		if v, ok := d.options.Selected(); ok {
			return d.reply(events.DialogReply{Value: v})
		}
		return nil
	case key.Matches(msg, k.Yes):
		return d.reply(events.DialogReply{Confirmed: true})
	case key.Matches(msg, k.No):
		return d.reply(events.DialogReply{})
	case key.Matches(msg, k.Submit) && !msg.Paste:
		if d.buf != nil {
			return d.reply(events.DialogReply{Value: d.buf.Value()})
		}
		return d.reply(events.DialogReply{Value: d.field.Value()})
	case key.Matches(msg, k.Newline):
		d.buf.Insert("\n")
		return nil
	}
	switch {
	case d.buf != nil:
		d.buf.Update(msg)
	case d.q.Method == MethodInput:
		var cmd tea.Cmd
		d.field, cmd = d.field.Update(msg)
		return cmd
	}
	return nil
}

// reply answers once: the dialog is closed from then on.
func (d *Dialog) reply(r events.DialogReply) tea.Cmd {
	if d.closed {
		return nil
	}
	d.closed = true
	return d.onReply(d, r)
}

// Title names the dialog in the header and on the ? screen.
func (d *Dialog) Title() string {
	if t := common.VisibleLine(d.q.Title); t != "" {
		return t
	}
	return "An extension asks"
}

// Help lists the keys that answer, then the moving keys of a select.
func (d *Dialog) Help() [][]key.Binding {
	groups := [][]key.Binding{d.keys.Answers()}
	if nav := d.keys.Nav.Bindings(); len(nav) > 0 {
		groups = append(groups, nav)
	}
	if d.buf != nil {
		e := d.buf.KeyMap()
		groups = append(groups, []key.Binding{e.Home, e.WordLeft, e.DeleteWord, e.KillLine, e.KillStart, e.Undo, e.Redo})
	}
	return groups
}

// View draws the dialog in at most height lines: the title and the
// answer keys always, then the state, the countdown, the message and the
// options or field, the message giving way first.
func (d *Dialog) View(width, height int) string {
	st := d.ui
	w := min(max(width-4, 24), 90) // outer width
	inner := w - 4                 // inside border and padding
	fit := func(s string) string { return ansi.Truncate(s, inner, "…") }

	holding := d.quiet.Holding()
	state := st.OK.Render(fit("▶ ready: answer with a key below"))
	if holding {
		s := "⏸ keys ignored until you stop typing…"
		if d.ignored > 0 {
			s += fmt.Sprintf(" (%s ignored)", common.Plural(d.ignored, "key"))
		}
		state = st.Warn.Render(fit(s))
	}
	var keyParts []string
	for _, b := range d.keys.Answers() {
		if holding {
			keyParts = append(keyParts, st.Dim.Render(b.Help().Key+" "+b.Help().Desc))
		} else {
			keyParts = append(keyParts, st.Key.Render(b.Help().Key)+" "+b.Help().Desc)
		}
	}
	keyLine := fit(strings.Join(keyParts, st.Dim.Render(" · ")))
	var countdown string
	if d.q.Timeout > 0 {
		countdown = st.Dim.Render(fit(fmt.Sprintf("⏱ %s left, then the extension stops waiting", secondsText(d.Left()))))
	}

	// The title wraps (an extension's title is read whole).
	title := strings.Split(dialog.Wrap(d.Title(), inner), "\n")
	// Border 2, title, state, keys, the countdown.
	used := 4 + len(title)
	if countdown != "" {
		used++
	}
	body := d.body(inner, max(height-used, 1))
	used += len(body)
	var msg []string
	if m := strings.TrimRight(d.q.Message, "\n"); m != "" {
		for _, l := range strings.Split(m, "\n") {
			msg = append(msg, strings.Split(dialog.Wrap(strings.ReplaceAll(common.Visible(l), "\t", "    "), inner), "\n")...)
		}
	}
	if room := height - used; len(msg) > room {
		// What does not fit is said to be there, not silently cut.
		msg = msg[:max(room-1, 0)]
		if room > 0 {
			msg = append(msg, st.Dim.Render("… (the message goes on; make the window taller to read it)"))
		}
	}
	var out []string
	for _, l := range title {
		out = append(out, st.DialogHead.Render(l))
	}
	out = append(out, msg...)
	out = append(out, body...)
	if countdown != "" {
		out = append(out, countdown)
	}
	out = append(out, state, keyLine)
	return st.Dialog.Width(w - 2).Render(strings.Join(out, "\n"))
}

// body is the options, the field or the text being edited, in at most
// rows lines of width w.
func (d *Dialog) body(w, rows int) []string {
	st := d.ui
	switch d.q.Method {
	case MethodSelect:
		if len(d.q.Options) == 0 {
			return []string{st.Dim.Render("(the extension offers no options: esc cancels)")}
		}
		d.options.SetLines(rows)
		var out []string
		for i, o := range d.options.Window() {
			o = ansi.Truncate(common.VisibleLine(o), w-2, "…")
			if i == d.options.Cursor() {
				out = append(out, st.Selected.Render("› "+o))
			} else {
				out = append(out, "  "+o)
			}
		}
		return out
	case MethodInput:
		d.field.Width = max(w-3, 4)
		return []string{d.field.View()}
	case MethodEditor:
		d.buf.SetSize(w, max(min(rows, 10), 1))
		return strings.Split(d.buf.View(), "\n")
	}
	return nil
}

// secondsText says a time left in whole seconds, rounded up: "1 s" until
// it is over.
func secondsText(d time.Duration) string {
	return fmt.Sprintf("%d s", (d+time.Second-1)/time.Second)
}

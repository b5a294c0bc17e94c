package session

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
)

// approvalKeys are the approval dialog's keys; the same table drives its
// handling, its key line and the ? screen.
type approvalKeys struct {
	Once, Session, Deny        key.Binding
	Up, Down, PageUp, PageDown key.Binding
	Top, Bottom                key.Binding
	answers, scrolls           []key.Binding
	// sessionOffered is false for a call that asks for a reason of its
	// own (a write under .git/): it is allowed once or not at all.
	sessionOffered bool
}

func newApprovalKeys(tool string, offerSession bool) approvalKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := approvalKeys{
		Once:     b("y", "allow once", "y"),
		Session:  b("a", "allow "+tool+" for this session", "a"),
		Deny:     b("n/esc", "deny", "n", "esc"),
		Up:       b("↑", "scroll up", "up"),
		Down:     b("↓", "scroll down", "down"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown"),
		Top:      b("home", "top", "home"),
		Bottom:   b("end", "bottom", "end"),
	}
	k.sessionOffered = offerSession
	k.answers = []key.Binding{k.Once}
	if offerSession {
		k.answers = append(k.answers, k.Session)
	}
	k.answers = append(k.answers, k.Deny)
	k.scrolls = []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
	return k
}

// approvalDialog asks whether a tool call may run. It shows the whole
// command or diff, control characters made visible, in a scrolling view
// whose answer keys stay on screen at any height. A runtime event opens
// it, not the user, so it ignores keys until the keyboard has rested
// (common.Quiet): typing "and also…" into the chat as it appears must not
// answer it.
type approvalDialog struct {
	ui      *common.UI
	ask     *ask
	project string
	keys    approvalKeys
	quiet   *common.Quiet
	ignored int // keys ignored during the quiet period, shown so none vanish unseen
	offset  int // first content row shown
	// answer closes the dialog and delivers the answer; the view owns it.
	onAnswer func(d *approvalDialog, allow, forSession bool) tea.Cmd

	// content rows for a width, built once per width
	rowsW   int
	rows    []string
	summary string
	page    int // rows shown by the last View, for paging
}

func newApprovalDialog(ui *common.UI, a *ask, project string, onAnswer func(*approvalDialog, bool, bool) tea.Cmd) *approvalDialog {
	return &approvalDialog{ui: ui, ask: a, project: project, keys: newApprovalKeys(a.req.Tool, a.req.Reason == ""),
		quiet: common.NewQuiet(ui), onAnswer: onAnswer, page: 1}
}

// Init starts the quiet period's timer.
func (d *approvalDialog) Init() tea.Cmd { return d.quiet.Start() }

// Holding reports whether the dialog still ignores keys (common.Guarded).
func (d *approvalDialog) Holding() bool { return d.quiet.Holding() }

func (d *approvalDialog) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case common.QuietMsg:
		return d, d.quiet.Update(msg)
	case tea.KeyMsg:
		k := d.keys
		// Scrolling is reading, never answering: allowed at once.
		switch {
		case key.Matches(msg, k.Up):
			d.offset--
			return d, nil
		case key.Matches(msg, k.Down):
			d.offset++
			return d, nil
		case key.Matches(msg, k.PageUp):
			d.offset -= max(d.page-1, 1)
			return d, nil
		case key.Matches(msg, k.PageDown):
			d.offset += max(d.page-1, 1)
			return d, nil
		case key.Matches(msg, k.Top):
			d.offset = 0
			return d, nil
		case key.Matches(msg, k.Bottom):
			d.offset = len(d.rows)
			return d, nil
		}
		if d.quiet.Holding() {
			d.ignored++
			return d, nil
		}
		switch {
		case key.Matches(msg, k.Once):
			return d, d.onAnswer(d, true, false)
		case k.sessionOffered && key.Matches(msg, k.Session):
			return d, d.onAnswer(d, true, true)
		case key.Matches(msg, k.Deny):
			return d, d.onAnswer(d, false, false)
		}
	}
	return d, nil
}

// build lays the command or diff out in rows of width w: every line made
// visible, tabs expanded, long lines wrapped (never cut: text past the
// edge is text the user would approve unseen), a command's lines numbered
// with ⏎ where each breaks.
func (d *approvalDialog) build(w int) {
	if d.rowsW == w && d.rows != nil {
		return
	}
	d.rowsW, d.rows = w, nil
	text, numbered := d.ask.diff, false
	if d.ask.req.Tool == "bash" {
		text, numbered = d.ask.req.Command, true
	}
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	if d.ask.req.Tool == "bash" {
		d.summary = fmt.Sprintf("command: %s, %s", plural(len(lines), "line"), plural(len(d.ask.req.Command), "byte"))
	} else {
		added, removed := 0, 0
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "+ "):
				added++
			case strings.HasPrefix(l, "- "):
				removed++
			}
		}
		d.summary = fmt.Sprintf("%s %s · %d lines added, %d removed", d.ask.req.Tool, common.VisibleLine(d.ask.req.Path), added, removed)
	}
	gutter := 0
	if numbered {
		gutter = len(fmt.Sprint(len(lines))) + 3 // "12 │ "
	}
	for i, l := range lines {
		l = strings.ReplaceAll(common.Visible(l), "\t", "    ")
		if numbered && i < len(lines)-1 {
			l += "⏎"
		}
		wrapped := strings.Split(ansi.Hardwrap(l, max(w-gutter, 4), true), "\n")
		for j, part := range wrapped {
			if numbered {
				num := strings.Repeat(" ", gutter-3)
				if j == 0 {
					num = fmt.Sprintf("%*d", gutter-3, i+1)
				}
				part = d.ui.Gutter.Render(num+" │ ") + part
			}
			d.rows = append(d.rows, part)
		}
	}
}

// joinFit joins parts with sep into lines of at most w cells, breaking
// only between parts (a key and what it does stay together).
func joinFit(parts []string, sep string, w int) []string {
	var lines []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case ansi.StringWidth(cur+sep+p) <= w:
			cur += sep + p
		default:
			lines = append(lines, cur)
			cur = p
		}
	}
	lines = append(lines, cur)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return lines
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return common.Group(n) + " " + unit + "s"
}

// View draws the dialog in at most height lines: the answer keys and the
// title always, then as much of the rest as fits, the command or diff
// getting what is left (one row at the least).
func (d *approvalDialog) View(width, height int) string {
	st := d.ui
	w := min(max(width-4, 24), 100) // outer width
	inner := w - 4                  // inside border and padding
	d.build(inner)
	fitLine := func(s string) string { return ansi.Truncate(s, inner, "…") }

	title := fitLine(st.DialogHead.Render("Allow " + d.ask.req.Tool + "?" + " · " + common.VisibleLine(d.project)))
	holding := d.quiet.Holding()
	var state string
	if holding {
		state = "⏸ keys ignored until you stop typing…"
		if d.ignored > 0 {
			state += fmt.Sprintf(" (%s ignored)", plural(d.ignored, "key"))
		}
		state = st.Warn.Render(fitLine(state))
	} else {
		state = st.OK.Render(fitLine("▶ ready: answer with a key below"))
	}
	var keyParts []string
	for _, k := range d.keys.answers {
		if holding {
			keyParts = append(keyParts, st.Dim.Render(k.Help().Key+" "+k.Help().Desc))
		} else {
			keyParts = append(keyParts, st.Key.Render(k.Help().Key)+" "+k.Help().Desc)
		}
	}
	keyLines := joinFit(keyParts, st.Dim.Render(" · "), inner)
	var reason []string
	if r := d.ask.req.Reason; r != "" {
		wrapped := strings.Split(ansi.Wrap("⚠ Asks because: "+common.VisibleLine(r), inner, ""), "\n")
		for _, l := range wrapped[:min(len(wrapped), 3)] {
			reason = append(reason, st.Warn.Render(fitLine(l)))
		}
	}

	// Height: border 2, title, keys; then the state, the reason's first
	// line, the summary and the rest of the reason, each only if a content
	// row still fits after it.
	used := 2 + 1 + len(keyLines)
	room := func(n int) bool {
		if used+n+1 <= height {
			used += n
			return true
		}
		return false
	}
	showState := room(1)
	if !showState && holding {
		keyLines[0] = ansi.Truncate(st.Warn.Render("⏸ ")+keyLines[0], inner, "…")
	}
	if len(reason) > 0 && !room(1) {
		reason = nil
	}
	showSummary := room(1)
	for len(reason) > 1 && !room(len(reason)-1) {
		reason = reason[:len(reason)-1]
	}
	page := max(min(height-used, len(d.rows)), 1)
	d.page = page
	d.offset = max(min(d.offset, len(d.rows)-page), 0)

	var out []string
	out = append(out, title)
	out = append(out, reason...)
	if showSummary {
		sum := d.summary
		if len(d.rows) > page {
			sum += fmt.Sprintf(" · rows %d–%d of %d, ↑↓ pgup pgdn", d.offset+1, d.offset+page, len(d.rows))
		}
		out = append(out, st.Dim.Render(fitLine(sum)))
	}
	out = append(out, d.rows[d.offset:d.offset+page]...)
	if showState {
		out = append(out, state)
	}
	out = append(out, keyLines...)
	return st.Dialog.Width(w - 2).Render(strings.Join(out, "\n"))
}

func (d *approvalDialog) Title() string { return "Allow " + d.ask.req.Tool + "?" }
func (d *approvalDialog) Help() [][]key.Binding {
	return [][]key.Binding{d.keys.answers, d.keys.scrolls}
}
func (d *approvalDialog) FullScreen() bool   { return false }
func (d *approvalDialog) Unsaved() string    { return "" }
func (d *approvalDialog) CapturesText() bool { return false }

// askApproval shows the approval dialog for a tool call of the open
// session. The broker sends only the open session's questions; one that
// was queued as the user left its session is not shown (the broker denies
// it if no other program shows that session), nor one already open.
func (m *Model) askApproval(a *ask) tea.Cmd {
	if a.sid != m.sid || m.sid == "" {
		return nil
	}
	for _, d := range m.asks {
		if d.ask.id == a.id {
			return nil
		}
	}
	d := newApprovalDialog(m.d.UI, a, m.project.Name, m.answerAsk)
	m.asks = append(m.asks, d)
	return m.d.UI.Push(d)
}

// answerAsk closes an approval dialog and sends the user's answer to the
// core; other programs showing the session close theirs.
func (m *Model) answerAsk(d *approvalDialog, allow, forSession bool) tea.Cmd {
	m.dropAsk(d.ask.id)
	if !m.br.answer(d.ask, allow, forSession) {
		return common.Notice("that question was already answered in another window or withdrawn")
	}
	return nil
}

// approvalGone closes the dialog of a question that ended elsewhere and
// says how it ended in the transcript.
func (m *Model) approvalGone(r events.Resolved) tea.Cmd {
	if !m.dropAsk(r.ID) {
		return nil // answered here, or never shown
	}
	text := "the approval question was withdrawn: its turn ended"
	switch {
	case r.By != 0 && !m.br.mine(r) && r.Answer.Allow && r.Answer.ForSession:
		text = "allowed for this session in another window"
	case r.By != 0 && !m.br.mine(r) && r.Answer.Allow:
		text = "approved in another window"
	case r.By != 0 && !m.br.mine(r):
		text = "denied in another window"
	case r.Unattended:
		text = "the approval question was denied: no window shows its session"
	}
	m.items = append(m.items, &item{kind: kindNotice, ready: true, mild: true, text: text})
	return nil
}

// dropAsk closes the dialog of question id and reports whether one was
// open.
func (m *Model) dropAsk(id uint64) bool {
	for i, d := range m.asks {
		if d.ask.id == id {
			m.asks = append(m.asks[:i:i], m.asks[i+1:]...)
			m.d.UI.Close(d)
			return true
		}
	}
	return false
}

// closeAsks closes every open approval dialog here. The questions stay
// with the core: another program showing the session may still answer
// them, and when none does, leaving the session denies them.
func (m *Model) closeAsks() {
	for _, d := range append([]*approvalDialog(nil), m.asks...) {
		m.dropAsk(d.ask.id)
	}
}

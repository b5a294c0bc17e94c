// Package approval puts a tool call's question to the user: a dialog
// stacked over the chat that shows the whole command, or the diff of the
// write or edit with line numbers and context, and answers it (once, for
// the session, always by a rule kept in the store, or no), after the
// keyboard has rested. Questions holds a chat's open dialogs and closes
// them when the core resolves their questions elsewhere.
package approval

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// dialogKeys are the approval dialog's keys; the same table drives its
// handling, its key line and the ? screen.
type dialogKeys struct {
	Once, Session, Always, Deny, DenyWhy key.Binding
	Up, Down, PageUp, PageDown           key.Binding
	Top, Bottom                          key.Binding
	answers, scrolls                     []key.Binding
	// broad is false for a call that asks for a reason of its own (a
	// write under .git/, to a hook, to the rules' copy): it is allowed
	// once or not at all, never for the session nor by a rule.
	broad bool
	// always is true when a rule could cover the call (bash, write, edit).
	always bool
}

func newDialogKeys(tool string, broad bool) dialogKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	k := dialogKeys{
		Once:     b("y", "allow once", "y"),
		Session:  b("a", "allow "+tool+" for this session", "a"),
		Always:   b("A", "always allow in this project…", "A"),
		Deny:     b("n/esc", "deny", "n", "esc"),
		DenyWhy:  b("r", "deny with a reason…", "r"),
		Up:       b("↑", "scroll up", "up"),
		Down:     b("↓", "scroll down", "down"),
		PageUp:   b("pgup", "page up", "pgup"),
		PageDown: b("pgdn", "page down", "pgdown"),
		Top:      b("home", "top", "home"),
		Bottom:   b("end", "bottom", "end"),
	}
	k.broad = broad
	k.always = broad && (tool == approvals.ToolBash || tool == approvals.ToolWrite || tool == approvals.ToolEdit)
	k.answers = []key.Binding{k.Once}
	if broad {
		k.answers = append(k.answers, k.Session)
	}
	if k.always {
		k.answers = append(k.answers, k.Always)
	}
	k.answers = append(k.answers, k.Deny, k.DenyWhy)
	k.scrolls = []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
	return k
}

// Dialog asks whether a tool call may run. It shows the whole
// command or diff, control characters made visible, in a scrolling view
// whose answer keys stay on screen at any height. A runtime event opens
// it, not the user, so it ignores keys until the keyboard has rested
// (common.Quiet): typing "and also…" into the chat as it appears must not
// answer it.
type Dialog struct {
	common.DialogLayer
	ui      *common.UI
	ask     *Ask
	project string
	keys    dialogKeys
	quiet   *common.Quiet
	ignored int // keys ignored during the quiet period, shown so none vanish unseen
	offset  int // first content row shown
	// answer closes the dialog and delivers the answer; the view owns it.
	// An answer with Always saves that rule first.
	onAnswer func(d *Dialog, ans events.Answer) tea.Cmd

	// content rows for a width, built once per width
	rowsW   int
	rows    []string
	summary string
	page    int // rows shown by the last View, for paging
}

func newDialog(ui *common.UI, a *Ask, project string, onAnswer func(*Dialog, events.Answer) tea.Cmd) *Dialog {
	return &Dialog{ui: ui, ask: a, project: project, keys: newDialogKeys(a.req.Tool, a.req.Reason == ""),
		quiet: common.NewQuiet(ui), onAnswer: onAnswer, page: 1}
}

// Init starts the quiet period's timer.
func (d *Dialog) Init() tea.Cmd { return d.quiet.Start() }

// Holding reports whether the dialog still ignores keys (common.Guarded).
func (d *Dialog) Holding() bool { return d.quiet.Holding() }

func (d *Dialog) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
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
			return d, d.onAnswer(d, events.Answer{Allow: true})
		case k.broad && key.Matches(msg, k.Session):
			return d, d.onAnswer(d, events.Answer{Allow: true, ForSession: true})
		case k.always && key.Matches(msg, k.Always):
			return d, d.ui.Push(d.alwaysPrompt())
		case key.Matches(msg, k.Deny):
			return d, d.onAnswer(d, events.Answer{})
		case key.Matches(msg, k.DenyWhy):
			return d, d.ui.Push(dialog.NewPrompt(d.ui, "Deny "+d.ask.req.Tool+": why?", "the model reads this in the tool's result; enter sends, esc goes back",
				"", nil, func(reason string) tea.Cmd {
					return d.onAnswer(d, events.Answer{Reason: strings.TrimSpace(common.VisibleLine(reason))})
				}))
		}
	}
	return d, nil
}

// subject is what a rule for the call would match: the command, or the
// file's path relative to the project folder (NAME:path in another
// folder of the project, as the engine wrote it).
func (d *Dialog) subject() string {
	if d.ask.req.Tool == approvals.ToolBash {
		return d.ask.req.Command
	}
	if d.ask.req.Folder != "" {
		return d.ask.req.Path
	}
	if canon, err := confine.Path(d.ask.root, d.ask.req.Path); err == nil {
		if rel, err := filepath.Rel(d.ask.root, canon); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return d.ask.req.Path
}

// alwaysPrompt asks for the rule to keep, the call's own command or path
// filled in: the user may widen it ("go test *", "docs/**") before
// saving. A rule that cannot be kept says why and is not saved.
func (d *Dialog) alwaysPrompt() *dialog.Prompt {
	tool := d.ask.req.Tool
	hint := "enter saves and allows; end with \" *\" for any arguments (never with ; & | $ > or `); esc goes back"
	if tool != approvals.ToolBash {
		hint = "a path in the project: * and ? within a name, ** for any folders; enter saves and allows; esc goes back"
	}
	hint += "\nkept in pi-tui's store, listed in Settings, copied to " + filepath.Join(".pi", approvals.ExportName)
	validate := func(p string) string {
		if err := (approvals.Rule{Tool: tool, Pattern: p}).Validate(); err != nil {
			return err.Error()
		}
		return ""
	}
	suggested := approvals.Suggest(tool, d.subject()).Pattern
	return dialog.NewPrompt(d.ui, "Always allow "+tool+" in "+common.VisibleLine(d.project), hint, suggested, validate,
		func(p string) tea.Cmd { return d.onAnswer(d, events.Answer{Allow: true, Always: p}) })
}

// build lays the command or diff out in rows of width w: every line made
// visible, tabs expanded, long lines wrapped (never cut: text past the
// edge is text the user would approve unseen). A command's lines are
// numbered with ⏎ where each breaks; a diff's carry the line numbers in
// the current and the new file.
func (d *Dialog) build(w int) {
	if d.rowsW == w && d.rows != nil {
		return
	}
	d.rowsW, d.rows = w, nil
	st := d.ui
	// add wraps one line behind a gutter; continuation rows get a blank
	// one of the same width.
	add := func(gutter string, gw int, text string, style func(...string) string) {
		// At spaces where it can, keeping every character: what is
		// approved is read exactly as it runs.
		wrapped := dialog.WrapExact(text, max(w-gw, 4))
		for j, part := range wrapped {
			g := gutter
			if j > 0 {
				g = strings.Repeat(" ", gw)
			}
			row := style(part)
			if gw > 0 {
				row = st.Gutter.Render(g) + row
			}
			d.rows = append(d.rows, row)
		}
	}
	plain := func(s ...string) string { return strings.Join(s, "") }
	if t := d.ask.req.Tool; t != "bash" && t != "edit" && t != "write" {
		// Another tool (an extension's, an MCP server's) is asked about
		// by its arguments, in its schema's order: on one line as pi
		// shows the call, then each whole.
		args := entries.ToolArgs(d.ask.req.Args, d.ask.req.Params)
		d.summary = strings.TrimSpace(common.VisibleLine(entries.ToolLabel(t)) + " " + entries.ArgsLine(args, 100))
		if len(args) == 0 {
			add("", 0, "(no arguments)", st.Dim.Render)
		}
		for _, a := range args {
			key := common.VisibleLine(a.Key) + ": "
			for _, l := range strings.Split(entries.ArgText(a.Value), "\n") {
				add(key, len([]rune(key)), strings.ReplaceAll(common.Visible(l), "\t", "    "), plain)
				key = strings.Repeat(" ", len([]rune(key)))
			}
		}
		return
	}
	if d.ask.req.Tool != "bash" {
		p := d.ask.diff
		d.summary = fmt.Sprintf("%s %s · %s added, %d removed", d.ask.req.Tool, common.VisibleLine(d.ask.req.Path), common.Plural(p.added, "line"), p.removed)
		if p.refused {
			d.summary = fmt.Sprintf("%s %s · pi will refuse it as it stands", d.ask.req.Tool, common.VisibleLine(d.ask.req.Path))
		}
		nw := p.width()
		gw := 2*nw + 4 // "12 13 │ "
		for _, l := range p.lines {
			text := strings.ReplaceAll(common.Visible(l.text), "\t", "    ")
			switch l.kind {
			case '!', '@':
				add("", 0, text, st.Dim.Render)
			case '+':
				add(gutterOf(l, nw)+" │ ", gw, "+ "+text, st.OK.Render)
			case '-':
				add(gutterOf(l, nw)+" │ ", gw, "- "+text, st.Error.Render)
			default:
				add(gutterOf(l, nw)+" │ ", gw, "  "+text, plain)
			}
		}
		if len(d.rows) == 0 {
			d.rows = []string{""}
		}
		return
	}
	text := strings.TrimSuffix(d.ask.req.Command, "\n")
	lines := strings.Split(text, "\n")
	d.summary = fmt.Sprintf("command: %s, %s", common.Plural(len(lines), "line"), common.Plural(len(d.ask.req.Command), "byte"))
	gw := len(fmt.Sprint(len(lines))) + 3 // "12 │ "
	for i, l := range lines {
		l = strings.ReplaceAll(common.Visible(l), "\t", "    ")
		if i < len(lines)-1 {
			l += "⏎"
		}
		add(fmt.Sprintf("%*d │ ", gw-3, i+1), gw, l, plain)
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

// View draws the dialog in at most height lines: the answer keys and the
// title always, then as much of the rest as fits, the command or diff
// getting what is left (one row at the least).
func (d *Dialog) View(width, height int) string {
	st := d.ui
	w := min(max(width-4, 24), 100) // outer width
	inner := w - 4                  // inside border and padding
	d.build(inner)
	fitLine := func(s string) string { return ansi.Truncate(s, inner, "…") }

	// The title wraps (a long project name is read whole); the answer
	// keys and it always show.
	title := st.DialogHead.Render(dialog.Wrap("Allow "+common.VisibleLine(entries.ToolLabel(d.ask.req.Tool))+"?"+" · "+common.VisibleLine(d.project), inner))
	holding := d.quiet.Holding()
	var state string
	if holding {
		state = "⏸ keys ignored until you stop typing…"
		if d.ignored > 0 {
			state += fmt.Sprintf(" (%s ignored)", common.Plural(d.ignored, "key"))
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
		wrapped := strings.Split(dialog.Wrap("⚠ Asks because: "+common.VisibleLine(r), inner), "\n")
		for _, l := range wrapped[:min(len(wrapped), 3)] {
			reason = append(reason, st.Warn.Render(fitLine(l)))
		}
	}

	// Height: border 2, title, keys; then the state, the reason's first
	// line, the summary and the rest of the reason, each only if a content
	// row still fits after it.
	used := 2 + strings.Count(title, "\n") + 1 + len(keyLines)
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
	// The summary (the file's path, the counts) wraps too; room is kept
	// for its longest form, with the rows shown when the rows scroll.
	summary := func(scroll string) []string {
		return strings.Split(dialog.Wrap(dialog.Tilde(d.summary, st.Home)+scroll, inner), "\n")
	}
	longest := ""
	if n := len(d.rows); n > 1 {
		longest = fmt.Sprintf(" · rows %d–%d of %d, ↑↓ pgup pgdn", n, n, n)
	}
	showSummary := room(len(summary(longest)))
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
		scroll := ""
		if len(d.rows) > page {
			scroll = fmt.Sprintf(" · rows %d–%d of %d, ↑↓ pgup pgdn", d.offset+1, d.offset+page, len(d.rows))
		}
		for _, l := range summary(scroll) {
			out = append(out, st.Dim.Render(l))
		}
	}
	out = append(out, d.rows[d.offset:d.offset+page]...)
	if showState {
		out = append(out, state)
	}
	out = append(out, keyLines...)
	return st.Dialog.Width(w - 2).Render(strings.Join(out, "\n"))
}

func (d *Dialog) Title() string {
	return "Allow " + common.VisibleLine(entries.ToolLabel(d.ask.req.Tool)) + "?"
}
func (d *Dialog) Help() [][]key.Binding {
	return [][]key.Binding{d.keys.answers, d.keys.scrolls}
}

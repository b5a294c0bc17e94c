// Package dialog has the small layers the screens float over the body: a
// yes/no confirmation, a choice of keyed options, a one-line text prompt
// and a menu whose items show their keys. A choice runs a func the caller
// handed in, within the Update that saw the key: it may open or close
// layers at once and returns the command for any I/O. No dialog does I/O
// itself.
package dialog

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// textWidth is the width of the text inside a box drawn no wider than
// width (box's frame, padding and margin).
func textWidth(width int) int { return min(max(width-4, 20), 72) - 4 }

// box draws a dialog frame no wider than width around a title, a body
// already laid out in lines of at most textWidth(width) cells (see
// Paragraph), and key hints, which break between hints, never inside one.
func box(st *common.UI, width int, title, body string, hints []string) string {
	w := textWidth(width) + 4
	// Titles carry names from files and models (a project's, a session's,
	// a branch): shown, never interpreted by the terminal.
	head := st.DialogHead.Render(Paragraph(st, common.VisibleLine(title), w-4))
	inner := lipgloss.JoinVertical(lipgloss.Left, head, "", body, "", st.Dim.Render(common.JoinHints(hints, " · ", w-4)))
	return st.Dialog.Width(w).Render(inner)
}

// Paragraph lays text out for a dialog: the home folder written as ~,
// wrapped at words in width cells (Wrap). Every dialog renderer draws
// its sentences with it.
func Paragraph(st *common.UI, text string, width int) string {
	return Wrap(Tilde(text, st.Home), width)
}

// Tilde writes the home folder as ~ wherever text names it or a path
// inside it; home "" or "/" leaves text as it is.
func Tilde(text, home string) string {
	home = strings.TrimSuffix(home, "/")
	if home == "" {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(text, home)
		if i < 0 {
			break
		}
		end := i + len(home)
		b.WriteString(text[:i])
		// Only the folder itself: /home/ann, not /home/anne.
		if end == len(text) || !pathChar(text[end]) {
			b.WriteString("~")
		} else {
			b.WriteString(home)
		}
		text = text[end:]
	}
	b.WriteString(text)
	return b.String()
}

// pathChar reports whether c continues a file name (so that a home
// folder followed by it is a different folder).
func pathChar(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Confirm asks a yes/no question. Yes runs onYes (then closes); no or esc
// closes.
type Confirm struct {
	common.DialogLayer
	st     *common.UI
	title  string
	body   string
	yesKey key.Binding
	noKey  key.Binding
	onYes  func() tea.Cmd
}

// NewConfirm returns a confirmation. yesKeys (default "y") confirm; the
// dialog says which.
func NewConfirm(st *common.UI, title, body string, onYes func() tea.Cmd, yesKeys ...string) *Confirm {
	if len(yesKeys) == 0 {
		yesKeys = []string{"y", "Y"}
	}
	return &Confirm{st: st, title: title, body: body, onYes: onYes,
		yesKey: key.NewBinding(key.WithKeys(yesKeys...), key.WithHelp(yesKeys[0], "yes")),
		noKey:  key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "cancel"))}
}

func (c *Confirm) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, c.yesKey):
			c.st.Close(c)
			return c, c.onYes()
		case key.Matches(km, c.noKey):
			return c, c.st.Close(c)
		}
	}
	return c, nil
}

func (c *Confirm) View(width, height int) string {
	return box(c.st, width, c.title, Paragraph(c.st, c.body, textWidth(width)), common.HintList(c.yesKey, c.noKey))
}
func (c *Confirm) Title() string         { return c.title }
func (c *Confirm) Help() [][]key.Binding { return [][]key.Binding{{c.yesKey, c.noKey}} }

// Choice is one option of a Choose dialog.
type Choice struct {
	Key  key.Binding
	Run  func() tea.Cmd // may be nil: just close
	Keep bool           // stay open after running
}

// Choose offers several keyed options (reload / overwrite / keep editing).
type Choose struct {
	common.DialogLayer
	st      *common.UI
	title   string
	body    string
	choices []Choice
	close   key.Binding
	onEsc   func() tea.Cmd
}

// OnEscape sets what esc does besides closing (an approval's esc denies,
// so nothing waits on an answer that never comes).
func (c *Choose) OnEscape(fn func() tea.Cmd) *Choose {
	c.onEsc = fn
	return c
}

// NewChoose returns a dialog with the given choices; esc is always "close".
func NewChoose(st *common.UI, title, body string, choices ...Choice) *Choose {
	return &Choose{st: st, title: title, body: body, choices: choices,
		close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))}
}

func (c *Choose) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		for _, ch := range c.choices {
			if key.Matches(km, ch.Key) {
				if !ch.Keep {
					c.st.Close(c)
				}
				if ch.Run == nil {
					return c, nil
				}
				return c, ch.Run()
			}
		}
		if key.Matches(km, c.close) {
			c.st.Close(c)
			if c.onEsc != nil {
				return c, c.onEsc()
			}
			return c, nil
		}
	}
	return c, nil
}

func (c *Choose) View(width, height int) string {
	var help []string
	for _, ch := range c.choices {
		help = append(help, c.st.Key.Render(ch.Key.Help().Key)+" "+ch.Key.Help().Desc)
	}
	return box(c.st, width, c.title, Paragraph(c.st, c.body, textWidth(width)), help)
}
func (c *Choose) Title() string { return c.title }
func (c *Choose) Help() [][]key.Binding {
	var ks []key.Binding
	for _, ch := range c.choices {
		ks = append(ks, ch.Key)
	}
	return [][]key.Binding{append(ks, c.close)}
}

// NewUnsaved is the question every editor asks when it is closed with
// changes not saved, with the same words and keys in each
// (docs/adr/0054-one-unsaved-changes-question.md): s saves and then
// closes (a save that fails or meets a conflict leaves the editor open
// with the text), d closes without saving, k or esc goes back to
// editing. what names what holds the changes ("~/src/api/AGENTS.md",
// "the memory of api").
func NewUnsaved(st *common.UI, what string, saveAndClose, discard func() tea.Cmd) *Choose {
	k := UnsavedKeys()
	return NewChoose(st, "Unsaved changes", "Your changes to "+what+" are not saved. Closing without saving loses them.",
		Choice{Key: k.SaveAndClose, Run: saveAndClose},
		Choice{Key: k.Discard, Run: discard},
		Choice{Key: k.KeepEditing})
}

// Unsaved are the keys of NewUnsaved's question.
type Unsaved struct{ SaveAndClose, Discard, KeepEditing key.Binding }

// UnsavedKeys returns the keys of the unsaved-changes question.
func UnsavedKeys() Unsaved {
	return Unsaved{
		SaveAndClose: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save and close")),
		Discard:      key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "discard and close")),
		KeepEditing:  key.NewBinding(key.WithKeys("k", "esc"), key.WithHelp("k/esc", "keep editing")),
	}
}

// Prompt asks for one line of text. Enter hands it to onSubmit, which
// returns the command to run (the dialog closes first).
type Prompt struct {
	common.DialogLayer
	st       *common.UI
	keys     promptKeys
	title    string
	hint     string
	input    textinput.Model
	onSubmit func(string) tea.Cmd
	errText  string
	validate func(string) string
}

// NewPrompt returns a prompt with an initial value. validate, when not
// nil, returns a sentence when the value cannot be accepted.
func NewPrompt(st *common.UI, title, hint, value string, validate func(string) string, onSubmit func(string) tea.Cmd) *Prompt {
	in := textinput.New()
	st.StyleTextInput(&in) // a cursor that shows without colour too
	// The value to edit may come from a file or a model (a session's
	// name, the command an always-allow rule starts from): its controls
	// are shown as text, never sent to the terminal, and it is one line.
	in.SetValue(common.VisibleLine(value))
	in.CursorEnd()
	in.Focus()
	in.Prompt = "> "
	in.CharLimit = 256
	return &Prompt{st: st, title: title, hint: hint, input: in, onSubmit: onSubmit, validate: validate, keys: promptKeys{
		OK:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "ok")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
}

// promptKeys are a prompt's keys; everything else is typed.
type promptKeys struct{ OK, Cancel key.Binding }

func (p *Prompt) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, p.keys.OK):
			v := p.input.Value()
			if p.validate != nil {
				if e := p.validate(v); e != "" {
					p.errText = e
					return p, nil
				}
			}
			p.st.Close(p)
			return p, p.onSubmit(v)
		case key.Matches(km, p.keys.Cancel):
			return p, p.st.Close(p)
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.errText = ""
	return p, cmd
}

func (p *Prompt) View(width, height int) string {
	tw := textWidth(width)
	p.input.Width = min(max(width-14, 10), 60, tw-3) // the prompt and the cursor beside it
	body := p.input.View()
	if p.hint != "" {
		body += "\n" + p.st.Dim.Render(Paragraph(p.st, p.hint, tw))
	}
	if p.errText != "" {
		body += "\n" + p.st.Error.Render(Paragraph(p.st, p.errText, tw))
	}
	return box(p.st, width, p.title, body, common.HintList(p.keys.OK, p.keys.Cancel))
}
func (p *Prompt) Title() string         { return p.title }
func (p *Prompt) Help() [][]key.Binding { return [][]key.Binding{{p.keys.OK, p.keys.Cancel}} }

// CapturesText is true: what is typed goes into the field.
func (p *Prompt) CapturesText() bool { return true }

// Item is one menu entry; Key's help text is shown beside it.
type Item struct {
	Key key.Binding
	Run func() tea.Cmd
}

// Menu lists keyed items; pressing an item's key, or enter on the
// highlighted one, runs it. The cursor goes round from the last item to
// the first; a menu taller than the screen scrolls.
type Menu struct {
	common.DialogLayer
	st    *common.UI
	title string
	items list.List[Item]
	keys  menuKeys
	// textW is the width the items were last laid out in (View sets it;
	// the list asks an item's height in it).
	textW int
}

// menuKeys are a menu's own keys; its items bring theirs. The moving
// keys leave out g and G, which items take (g moves a project to a
// group).
type menuKeys struct {
	Nav           list.KeyMap
	Choose, Close key.Binding
}

// menuChrome is the lines of a menu's box around its items and title:
// the border, and the title and the hint with a blank line each.
const menuChrome = 5

// menuWidth is the narrowest a menu is drawn (it widens, up to the
// screen, for longer items).
const menuWidth = 48

// NewMenu returns a menu.
func NewMenu(st *common.UI, title string, items []Item) *Menu {
	nav := list.DefaultKeyMap()
	nav.Top.SetKeys("home")
	nav.Top.SetHelp("home", "first")
	nav.Bottom.SetKeys("end")
	nav.Bottom.SetHelp("end", "last")
	m := &Menu{st: st, title: title, items: list.New[Item](nav), textW: textWidth(menuWidth), keys: menuKeys{Nav: nav,
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run the highlighted item")),
		Close:  key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}}
	m.items.Wrap = true
	m.items.Height = func(it Item) int { return len(m.itemLines(it)) }
	m.items.SetItems(items)
	return m
}

// itemLines lays an item out in the menu's text width: its key, then
// what it does, wrapped under its own start.
// Highlight puts the cursor on item i (the one in use, where a picker
// opens), and returns the menu.
func (m *Menu) Highlight(i int) *Menu {
	m.items.SetCursor(i)
	return m
}

// Current is how a picker marks the row in use, after its text; the
// cursor starts there, and the mark stays as it moves.
const Current = "  (current)"

func (m *Menu) itemLines(it Item) []string {
	h := it.Key.Help()
	indent := 2 + ansi.StringWidth(h.Key) + 2
	w := max(m.textW, indent+10)
	lines := strings.Split(Wrap(Tilde(h.Desc, m.st.Home), w-indent), "\n")
	for i := range lines {
		if i > 0 {
			lines[i] = strings.Repeat(" ", indent) + lines[i]
		}
	}
	return lines
}

func (m *Menu) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	// An item's own key comes first: the menu shows it beside the item,
	// so an item bound to k or q (a long /model menu) is chosen by it.
	for _, it := range m.items.Items() {
		if key.Matches(km, it.Key) {
			m.st.Close(m)
			return m, it.Run()
		}
	}
	switch {
	case key.Matches(km, m.keys.Close):
		return m, m.st.Close(m)
	case m.items.Update(km):
	case key.Matches(km, m.keys.Choose):
		if it, ok := m.items.Selected(); ok {
			m.st.Close(m)
			return m, it.Run()
		}
	}
	return m, nil
}

func (m *Menu) View(width, height int) string {
	longest := 0
	for _, it := range m.items.Items() {
		h := it.Key.Help()
		longest = max(longest, 4+ansi.StringWidth(h.Key)+ansi.StringWidth(h.Desc))
	}
	bw := min(width, max(menuWidth, longest+8))
	m.textW = textWidth(bw)
	titleLines := strings.Count(Paragraph(m.st, common.VisibleLine(m.title), m.textW), "\n") + 1
	m.items.SetLines(height - menuChrome - titleLines)
	var lines []string
	for i, it := range m.items.Window() {
		k := it.Key.Help().Key
		for j, l := range m.itemLines(it) {
			switch {
			case i == m.items.Cursor() && j == 0:
				l = m.st.Selected.Render("› " + k + "  " + l)
			case i == m.items.Cursor():
				l = m.st.Selected.Render(l)
			case j == 0:
				l = "  " + m.st.Key.Render(k) + "  " + l
			}
			lines = append(lines, l)
		}
	}
	return box(m.st, bw, m.title, strings.Join(lines, "\n"), []string{"key or enter", "esc close"})
}
func (m *Menu) Title() string { return m.title }
func (m *Menu) Help() [][]key.Binding {
	var ks []key.Binding
	for _, it := range m.items.Items() {
		ks = append(ks, it.Key)
	}
	return [][]key.Binding{ks, append([]key.Binding{m.keys.Choose}, append(m.keys.Nav.Bindings(), m.keys.Close)...)}
}

package editor

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/assets"
	"github.com/pi-tui/pi-tui/core/agentsmd"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// Config says which file a Page edits and how.
type Config struct {
	Dir   string // the directory holding the file (project root or agent dir)
	Name  string // file name, usually AGENTS.md
	Label string // how the header names the file, e.g. "~/src/api/AGENTS.md"
	// Project is true for a project root: the page then says when another
	// candidate (AGENTS.override.md, CLAUDE.md) is in effect and offers it.
	Project bool
	// Editor is the user's $VISUAL/$EDITOR command line ("" when unset).
	Editor string
	// Exec runs an external program in the terminal and reports when it
	// ends; nil means tea.ExecProcess. Over SSH the server supplies one
	// that runs in the client's PTY.
	Exec func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd
	// Markdown renders the preview (glamour with the program's style).
	Markdown func(text string, width int) (string, error)
	// Open returns a command that opens another file of the same root in
	// a new page (used to switch to the file in effect).
	Open func(name string) tea.Cmd
}

// PageKeys are the page's keys.
type PageKeys struct {
	Save, Close, External, Preview, OpenWinner key.Binding
	// Find opens the search line; in it FindNext and FindPrev step
	// through the matches and Close ends the search.
	Find, FindNext, FindPrev key.Binding
}

func defaultPageKeys() PageKeys {
	return PageKeys{
		Save:       key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Close:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
		External:   key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "$EDITOR")),
		Preview:    key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "preview")),
		OpenWinner: key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "edit the file in effect")),
		Find:       key.NewBinding(key.WithKeys("ctrl+f"), key.WithHelp("ctrl+f", "find")),
		FindNext:   key.NewBinding(key.WithKeys("enter", "down", "ctrl+f", "ctrl+n"), key.WithHelp("enter/↓", "next match")),
		FindPrev:   key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous match")),
	}
}

// Page edits one instruction file.
type Page struct {
	common.PageLayer
	cfg  Config
	st   *common.UI
	keys PageKeys
	buf  *Buffer

	doc    agentsmd.Doc
	loaded bool
	// held are the keys typed while the file loads (a slow disk, a link
	// over SSH): they are applied, in order, once it has loaded, so
	// nothing typed into the editor as it opens is lost.
	held    []tea.KeyMsg
	loadErr string
	// extPath is set when the file cannot be edited here (too big, not
	// UTF-8) but $EDITOR can take it: ctrl+e opens this path.
	extPath  string
	winner   string // candidate in effect at the root when it is not Name
	saved    string // the buffer's text as last loaded or saved, to tell if dirty
	find     *finding
	fromTmpl bool

	// after runs once the next save succeeds (close the page, open
	// $EDITOR); a failed save drops it, so nothing happens to the text.
	after func() tea.Cmd

	preview     bool
	previewView viewport.Model
	spin        spinner.Model
	busy        string

	width, height int
}

// NewPage returns a page; its Init loads the file.
func NewPage(cfg Config, st *common.UI) *Page {
	if cfg.Name == "" {
		cfg.Name = "AGENTS.md"
	}
	p := &Page{cfg: cfg, st: st, keys: defaultPageKeys(), buf: New(st.Cursor, st.Gutter),
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)), busy: "loading"}
	// ctrl+e is $EDITOR here (the brief's key): end alone goes to the
	// line end.
	bk := p.buf.KeyMap()
	bk.Home = key.NewBinding(key.WithKeys("home", "ctrl+a"), key.WithHelp("ctrl+a/end", "line start/end (ctrl+e is $EDITOR here)"))
	bk.End = key.NewBinding(key.WithKeys("end"))
	bk.Top = key.NewBinding(key.WithKeys("ctrl+home"), key.WithHelp("ctrl+home/end", "file start/end"))
	p.buf.SetKeyMap(bk)
	return p
}

type pageLoadedMsg struct {
	page   *Page
	doc    agentsmd.Doc
	winner string
	err    error
}

type pageSavedMsg struct {
	page  *Page
	doc   agentsmd.Doc
	typed string // the buffer's text that was saved (the file adds a final newline)
	err   error
}

type previewMsg struct {
	page *Page
	text string
	err  error
}

type externalDoneMsg struct {
	page *Page
	err  error
}

// Init loads the file.
func (p *Page) Init() tea.Cmd { return tea.Batch(p.load(), p.spin.Tick) }

// Load is the command that loads the file; exported for the shell, which
// starts a page when it pushes it.
func (p *Page) Load() tea.Cmd { return p.Init() }

func (p *Page) load() tea.Cmd {
	cfg, ctx := p.cfg, p.st.Ctx
	return func() tea.Msg {
		doc, err := agentsmd.Load(cfg.Dir, cfg.Name)
		msg := pageLoadedMsg{page: p, doc: doc, err: err}
		if err == nil {
			msg.winner = winnerIn(ctx, cfg)
		}
		return msg
	}
}

// winnerIn names the candidate in effect in a project root when it is not
// the file being edited ("" otherwise, and for the agent dir).
func winnerIn(ctx context.Context, cfg Config) string {
	if !cfg.Project {
		return ""
	}
	c, err := instructions.New(instructions.Options{}).ResolveRoot(ctx, cfg.Dir)
	if err != nil {
		return ""
	}
	for _, s := range c.Sources {
		if s.Scope == instructions.ScopeProject && s.Kind == instructions.KindInstructions && s.Label != cfg.Name {
			return s.Label
		}
	}
	return ""
}

type winnerMsg struct {
	page   *Page
	winner string
}

func (p *Page) refreshWinner() tea.Cmd {
	cfg, ctx := p.cfg, p.st.Ctx
	return func() tea.Msg { return winnerMsg{page: p, winner: winnerIn(ctx, cfg)} }
}

func (p *Page) dirty() bool { return p.loaded && p.buf.Value() != p.saved }

// Update handles the page's messages.
func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case pageLoadedMsg:
		if msg.page != p {
			return p, nil
		}
		p.busy = ""
		if msg.err != nil {
			p.loadErr = common.Visible(msg.err.Error()) // names files of the repository
			// The advice of a file too big or not UTF-8 names ctrl+e:
			// it must work though there is nothing to edit here.
			if strings.Contains(p.loadErr, "$EDITOR (ctrl+e)") {
				p.extPath = filepath.Join(p.cfg.Dir, p.cfg.Name)
			}
			p.held = nil // there is nothing to type into
			return p, nil
		}
		p.doc, p.winner, p.loaded, p.loadErr, p.extPath = msg.doc, msg.winner, true, "", ""
		p.layout()
		text := msg.doc.Content
		p.fromTmpl = !msg.doc.Exists && p.cfg.Project
		if p.fromTmpl {
			text = assets.StarterAgents
		}
		p.buf.SetValue(text)
		p.saved = text
		p.layout()
		held := p.held
		p.held = nil
		cmds := make([]tea.Cmd, 0, len(held))
		for _, k := range held {
			cmds = append(cmds, p.key(k))
		}
		return p, tea.Batch(cmds...)
	case pageSavedMsg:
		if msg.page != p {
			return p, nil
		}
		p.busy = ""
		after := p.after
		p.after = nil
		if errors.Is(msg.err, agentsmd.ErrChangedOnDisk) {
			return p, p.st.Push(p.conflictDialog())
		}
		if msg.err != nil {
			return p, common.Failure(msg.err)
		}
		p.doc, p.saved, p.fromTmpl = msg.doc, msg.typed, false
		var then tea.Cmd
		if after != nil {
			then = after()
		}
		return p, tea.Batch(common.Notice("saved %s (%s)", p.cfg.Label, common.Plural(len(msg.doc.Content), "byte")),
			func() tea.Msg { return common.ProjectsChangedMsg{} }, p.refreshWinner(), then)
	case winnerMsg:
		if msg.page == p {
			p.winner = msg.winner
			p.layout()
		}
		return p, nil
	case previewMsg:
		if msg.page != p {
			return p, nil
		}
		p.busy = ""
		if msg.err != nil {
			p.preview = false
			return p, common.Failure(fmt.Errorf("preview: %w", msg.err))
		}
		p.previewView.SetContent(msg.text)
		return p, nil
	case externalDoneMsg:
		if msg.page != p {
			return p, nil
		}
		if msg.err != nil {
			return p, common.Failure(fmt.Errorf("%s: %w", p.cfg.Editor, msg.err))
		}
		p.busy = "reloading"
		return p, tea.Batch(p.load(), p.spin.Tick, common.Notice("reloaded %s after $EDITOR", p.cfg.Label))
	case spinner.TickMsg:
		if p.busy == "" {
			return p, nil
		}
		var cmd tea.Cmd
		p.spin, cmd = p.spin.Update(msg)
		return p, cmd
	case tea.KeyMsg:
		return p, p.key(msg)
	}
	return p, nil
}

// maxHeld bounds the keys kept while the file loads: a paste's worth
// arrives as one key, so this is many typed keys, and a client that sends
// without end cannot grow it.
const maxHeld = 256

func (p *Page) key(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	switch {
	case p.find != nil && p.findKey(msg):
		return nil
	case key.Matches(msg, k.Close):
		if p.preview {
			p.preview = false
			return nil
		}
		if p.dirty() {
			return p.st.Push(dialog.NewUnsaved(p.st, p.cfg.Label, func() tea.Cmd { return p.saveThen(p.closeSelf) }, p.closeSelf))
		}
		return p.st.Close(p)
	case !p.loaded && p.extPath != "" && key.Matches(msg, k.External):
		return p.external()
	case !p.loaded:
		if p.loadErr == "" && len(p.held) < maxHeld {
			p.held = append(p.held, msg)
		}
		return nil
	case key.Matches(msg, k.Find) && !p.preview:
		p.startFind()
		return nil
	case key.Matches(msg, k.Save):
		return p.save(false)
	case key.Matches(msg, k.Preview):
		p.preview = !p.preview
		if p.preview {
			return p.renderPreview()
		}
		return nil
	case key.Matches(msg, k.External):
		return p.external()
	case key.Matches(msg, k.OpenWinner) && p.winner != "" && p.cfg.Open != nil:
		return p.cfg.Open(p.winner)
	}
	if p.preview {
		var cmd tea.Cmd
		p.previewView, cmd = p.previewView.Update(msg)
		return cmd
	}
	p.buf.Update(msg)
	return nil
}

func bind(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }

// saveThen saves and calls then only once the save succeeded.
func (p *Page) saveThen(then func() tea.Cmd) tea.Cmd {
	p.after = then
	return p.save(false)
}

func (p *Page) closeSelf() tea.Cmd { return p.st.Close(p) }

func (p *Page) save(overwrite bool) tea.Cmd {
	if !p.loaded {
		return nil
	}
	p.busy = "saving"
	doc, typed := p.doc, p.buf.Value()
	return func() tea.Msg {
		d, err := agentsmd.Save(doc, finalNewline(typed), overwrite)
		return pageSavedMsg{page: p, doc: d, typed: typed, err: err}
	}
}

// finalNewline ends a non-empty text with a newline, as POSIX text files
// (and git diffs without "\ No newline at end of file") expect.
func finalNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// conflictDialog asks what to do when the file changed on disk: the
// user's text stays in the editor until they choose.
func (p *Page) conflictDialog() common.Layer {
	return dialog.NewChoose(p.st, "Changed on disk",
		fmt.Sprintf("%s changed on disk after you opened it.", p.cfg.Label),
		dialog.Choice{Key: bind("r", "reload (drop my changes)"), Run: func() tea.Cmd { p.busy = "reloading"; return p.load() }},
		dialog.Choice{Key: bind("o", "overwrite with mine"), Run: func() tea.Cmd { return p.save(true) }},
		dialog.Choice{Key: bind("k", "keep editing")})
}

func (p *Page) external() tea.Cmd {
	if p.cfg.Editor == "" {
		return common.Failure(errors.New("set $EDITOR (or $VISUAL) to edit with an external editor"))
	}
	if p.dirty() || p.fromTmpl {
		return p.st.Push(dialog.NewChoose(p.st, "Save first?", "The external editor opens the file on disk; save your changes first.",
			dialog.Choice{Key: bind("s", "save, then open $EDITOR"), Run: func() tea.Cmd { return p.saveThen(p.runExternal) }},
			dialog.Choice{Key: bind("k", "keep editing here")}))
	}
	return p.runExternal()
}

func (p *Page) runExternal() tea.Cmd {
	fields := strings.Fields(p.cfg.Editor)
	path := p.doc.Target
	if !p.loaded {
		path = p.extPath
	}
	cmd := exec.Command(fields[0], append(fields[1:], path)...)
	done := func(err error) tea.Msg { return externalDoneMsg{page: p, err: err} }
	if p.cfg.Exec != nil {
		return p.cfg.Exec(cmd, done)
	}
	return tea.ExecProcess(cmd, done)
}

func (p *Page) renderPreview() tea.Cmd {
	if p.cfg.Markdown == nil {
		p.previewView.SetContent(p.buf.Value())
		return nil
	}
	text, width, render := p.buf.Value(), p.width, p.cfg.Markdown
	p.busy = "rendering"
	return func() tea.Msg {
		out, err := render(text, width)
		return previewMsg{page: p, text: out, err: err}
	}
}

// layout gives the text what the header, the notice of another file in
// effect and the meter leave; each of them wraps, so their heights change
// with the width and with what they say (a save, the busy spinner).
func (p *Page) layout() {
	h := p.height - len(p.headLines()) - len(p.meter())
	if p.winner != "" {
		h -= strings.Count(p.winnerNotice(), "\n") + 1 // the "another file is in effect" notice
	}
	h = max(h, 3)
	p.buf.SetSize(p.width, h)
	p.previewView.Width, p.previewView.Height = p.width, h
}

// headLines is the header: the file's path, shortened in its middle when
// it alone is wider than the line (its last folders and name stay), then
// what the file's state is, beside it when it fits, else wrapped below:
// a sentence such as the starter template's note is never cut.
func (p *Page) headLines() []string {
	st, w := p.st, max(p.width, 20)
	var parts []string
	switch {
	case p.fromTmpl:
		parts = append(parts, st.Dim.Render("new file from the starter template; ctrl+s creates it"))
	case p.dirty():
		parts = append(parts, st.Warn.Render("modified"))
	}
	if p.busy != "" {
		parts = append(parts, p.spin.View()+" "+p.busy)
	}
	lines := []string{st.Title.Render(common.ShortPath(p.cfg.Label, w))}
	for _, part := range parts {
		last := lines[len(lines)-1]
		if ansi.StringWidth(last)+2+ansi.StringWidth(part) <= w {
			lines[len(lines)-1] = last + "  " + part
			continue
		}
		lines = append(lines, strings.Split(ansi.Wrap(part, w, ""), "\n")...)
	}
	return lines
}

// View draws the page.
func (p *Page) View(width, height int) string {
	p.width, p.height = width, height
	p.layout()
	st := p.st
	head := p.headLines()
	lines := append([]string{}, head...)
	if p.winner != "" {
		lines = append(lines, p.winnerNotice())
	}
	if p.loadErr != "" {
		keys := "esc close"
		if p.extPath != "" {
			keys = "ctrl+e open in $EDITOR · esc close"
		}
		return strings.Join(head, "\n") + "\n\n" + st.Error.Render(ansi.Wrap("Cannot edit: "+p.loadErr, max(p.width, 20), "")) + "\n\n" + st.Dim.Render(keys)
	}
	body := ""
	switch {
	case !p.loaded:
		body = ""
	case p.preview:
		body = p.previewView.View()
	default:
		body = p.buf.View()
	}
	lines = append(lines, body)
	lines = append(lines, p.meter()...)
	return strings.Join(lines, "\n")
}

// winnerNotice says which file is in effect and what saving this one does.
func (p *Page) winnerNotice() string {
	st := p.st
	var text string
	if p.doc.Exists || strings.HasPrefix(p.winner, "AGENTS.override") {
		text = fmt.Sprintf("%s wins here, so this file is ignored.", p.winner)
	} else {
		text = fmt.Sprintf("%s is in effect (no %s yet); saving creates %s, which then wins.", p.winner, p.cfg.Name, p.cfg.Name)
	}
	return ansi.Wrap(st.Warn.Render(text)+st.Dim.Render(" ctrl+o edits "+p.winner), max(p.width, 20), "")
}

// meter shows the file's bytes against the 32 KiB chain budget, the
// cursor position, and the keys.
func (p *Page) meter() []string {
	n := p.buf.Len()
	budget := instructions.DefaultBudgetBytes
	text := fmt.Sprintf("%s / %s bytes of the chain budget (%d%%)", common.Group(n), common.Group(budget), n*100/budget)
	style := p.st.Dim
	if n > budget {
		style = p.st.Warn
		text += " — over the budget: the agent will see it cut, with a note"
	}
	row, col := p.buf.Cursor()
	help := "ctrl+s save · esc close · ctrl+f find · ctrl+z undo · ctrl+e $EDITOR · f1 help"
	if p.winner != "" {
		help = "ctrl+s save · esc close · ctrl+o edit " + p.winner + " · f1 help"
	}
	if p.preview {
		help = "preview · ↑/↓ scroll · ctrl+p or esc back to editing"
	}
	// The meter and the keys wrap, the keys between two of them.
	w := max(p.width, 20)
	out := strings.Split(ansi.Wrap(style.Render(text)+p.st.Dim.Render(fmt.Sprintf("  ln %d, col %d", row+1, col+1)), w, ""), "\n")
	if p.find != nil {
		return append(out, strings.Split(ansi.Wrap(p.findLine(), w, ""), "\n")...)
	}
	for _, l := range common.HintLines("", strings.Split(help, " · "), w) {
		out = append(out, p.st.Dim.Render(l))
	}
	return out
}

// Title names the page.
func (p *Page) Title() string { return p.cfg.Label }

// Help lists the page's keys; ctrl+o only while another file wins.
func (p *Page) Help() [][]key.Binding { return p.help(p.winner != "") }

// FullHelp lists every key the page can show, ctrl+o included: the
// key table in docs/keys.md is held to it.
func (p *Page) FullHelp() [][]key.Binding { return p.help(true) }

func (p *Page) help(winner bool) [][]key.Binding {
	k := p.keys
	b := p.buf.KeyMap()
	first := []key.Binding{k.Save, k.Close, k.Preview, k.External, k.Find}
	if winner {
		first = append(first, k.OpenWinner)
	}
	return [][]key.Binding{first, {b.Home, b.Top, b.WordLeft, b.PageUp, b.DeleteWord, b.KillLine, b.KillStart}, {b.Undo, b.Redo, k.FindNext, k.FindPrev}}
}

// Unsaved says the file's changes are not saved, when they are not.
func (p *Page) Unsaved() string {
	if p.dirty() {
		return "Unsaved changes to " + p.cfg.Label
	}
	return ""
}

// CapturesText is true while editing.
func (p *Page) CapturesText() bool { return !p.preview }

// Text returns the editor's current text (for tests and the shell).
func (p *Page) Text() string { return p.buf.Value() }

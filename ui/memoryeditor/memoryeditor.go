// Package memoryeditor is the project memory page: the list of entries and
// an editor for one entry, a live meter of the projection against the
// 32,768-byte limit, a preview of exactly what a runtime receives, and
// compare-and-swap saves that never drop the user's text on a conflict.
package memoryeditor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/editor"
	"github.com/pi-tui/pi-tui/ui/list"
)

type mode int

const (
	modeList mode = iota
	modeEntry
	modePreview
)

// Keys are the page's keys.
type Keys struct {
	Add, Edit, Delete, Save, Close, Preview, Field key.Binding
	// Nav moves through the entries.
	Nav list.KeyMap
	// AgentWrites turns the project's agent-writes switch on and off.
	AgentWrites key.Binding
	// Next goes on from the title to the content (Field's partner).
	Next key.Binding
}

func defaultKeys() Keys {
	b := func(k, h string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(append([]string{k}, keys...)...), key.WithHelp(k, h))
	}
	nav := list.DefaultKeyMap()
	nav.Up.SetHelp("↑", "up")
	nav.Down.SetHelp("↓", "down")
	return Keys{
		Nav:     nav,
		Next:    key.NewBinding(key.WithKeys("enter")),
		Add:     b("a", "add"),
		Edit:    b("enter", "edit"),
		Delete:  b("d", "delete"),
		Save:    b("ctrl+s", "save"),
		Close:   b("esc", "back"),
		Preview: b("p", "preview", "ctrl+p"),
		Field:   b("tab", "title/content"),

		AgentWrites: b("w", "agent may write"),
	}
}

// Page edits one project's memory.
type Page struct {
	common.PageLayer
	host  *host.Host
	st    *common.UI
	keys  Keys
	root  string
	label string

	base    memory.Memory // what the working copy is based on
	entries []memory.Entry
	saved   string // projection of the last loaded/saved entries plus ids, to tell if dirty
	loaded  bool
	loadErr string
	warn    string

	mode    mode
	list    list.List[memory.Entry] // the cursor over entries (set again whenever they change)
	editing int                     // entry index in modeEntry
	title   textinput.Model
	content *editor.Buffer
	field   int // 0 title, 1 content
	preview viewport.Model
	busy    string
	dropped int // entries without content in the last save

	// agent is the project's agent-writes switch as last read.
	agent agentState

	// after runs once the next save succeeds (closing the page after
	// "save and close"); a save that fails or meets a conflict drops it,
	// so the page and its text stay.
	after func() tea.Cmd

	width, height int
	// chrome is the lines the last frame's heading, warning, meter and
	// key hints took: they wrap, so the body gets what they leave.
	chrome int
}

// New returns the page for the project at root; label names it.
func New(h *host.Host, st *common.UI, root, label string) *Page {
	t := textinput.New()
	st.StyleTextInput(&t) // a cursor that shows without colour too
	t.Prompt = ""
	t.Placeholder = "(optional title)"
	t.CharLimit = 200
	p := &Page{host: h, st: st, keys: defaultKeys(), root: root, label: label, title: t,
		content: editor.New(st.Cursor, st.Gutter), busy: "loading"}
	p.list = list.New[memory.Entry](p.keys.Nav)
	return p
}

// setEntries replaces the working copy; the cursor keeps its place.
func (p *Page) setEntries(entries []memory.Entry) {
	p.entries = entries
	p.list.SetItems(entries)
}

type loadedMsg struct {
	page *Page
	m    memory.Memory
	err  error
}

type savedMsg struct {
	page *Page
	m    memory.Memory
	err  error
}

// Init loads the memory.
func (p *Page) Init() tea.Cmd { return tea.Batch(p.load(), p.loadAgent()) }

func (p *Page) load() tea.Cmd {
	svc, root, ctx := p.host.Memory, p.root, p.st.Ctx
	return func() tea.Msg {
		m, err := svc.Load(ctx, root)
		return loadedMsg{page: p, m: m, err: err}
	}
}

func fingerprint(entries []memory.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.ID + "\x00" + e.Title + "\x00" + e.Content + "\x01")
	}
	return b.String()
}

func (p *Page) dirty() bool { return p.loaded && fingerprint(p.entries) != p.saved }

// Update handles the page's messages.
func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.page != p {
			return p, nil
		}
		p.busy = ""
		var ue *memory.UnreadableError
		switch {
		case errors.As(msg.err, &ue):
			p.warn = msg.err.Error()
		case msg.err != nil:
			p.loadErr = msg.err.Error()
			return p, nil
		}
		p.base, p.loaded = msg.m, true
		p.setEntries(append([]memory.Entry(nil), msg.m.Entries...))
		p.saved = fingerprint(p.entries)
		p.mode = modeList
		return p, nil
	case savedMsg:
		if msg.page != p {
			return p, nil
		}
		p.busy = ""
		after := p.after
		p.after = nil
		var tl *memory.TooLargeError
		switch {
		case errors.Is(msg.err, memory.ErrConflict):
			return p, p.st.Push(p.conflictDialog())
		case errors.As(msg.err, &tl):
			return p, common.Failure(msg.err)
		case msg.err != nil:
			return p, common.Failure(msg.err)
		}
		p.base = msg.m
		p.setEntries(append([]memory.Entry(nil), msg.m.Entries...))
		p.saved = fingerprint(p.entries)
		p.warn = ""
		note := ""
		if p.dropped > 0 {
			note = fmt.Sprintf(" (%d without content dropped)", p.dropped)
		}
		var then tea.Cmd
		if after != nil {
			then = after()
		}
		return p, tea.Batch(common.Notice("saved memory of %s: %s, %s%s", p.label, common.PluralOf(len(p.entries), "entry", "entries"), common.Plural(len(msg.m.Content), "byte"), note),
			func() tea.Msg { return common.ProjectsChangedMsg{} }, then)
	case overwriteMsg:
		if msg.page != p {
			return p, nil
		}
		// Base the user's entries on the current stored value, then save.
		p.base = msg.base
		return p, p.save()
	case tea.KeyMsg:
		return p, p.key(msg)
	case agentMsg:
		if msg.page == p {
			return p, p.updateAgent(msg)
		}
	}
	return p, nil
}

type overwriteMsg struct {
	page *Page
	base memory.Memory
}

func (p *Page) key(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	if !p.loaded {
		if key.Matches(msg, k.Close) {
			return p.st.Close(p)
		}
		return nil
	}
	if key.Matches(msg, k.Save) {
		p.commitEntry()
		return p.save()
	}
	if p.mode == modeList && key.Matches(msg, k.AgentWrites) {
		return p.toggleAgent()
	}
	switch p.mode {
	case modePreview:
		if key.Matches(msg, k.Close) || key.Matches(msg, k.Preview) {
			p.mode = modeList
			return nil
		}
		var cmd tea.Cmd
		p.preview, cmd = p.preview.Update(msg)
		return cmd
	case modeEntry:
		switch {
		case key.Matches(msg, k.Close):
			p.commitEntry()
			p.mode = modeList
			return nil
		case key.Matches(msg, k.Field):
			p.field = 1 - p.field
			p.focusField()
			return nil
		}
		if p.field == 0 {
			if key.Matches(msg, k.Next) {
				p.field = 1
				p.focusField()
				return nil
			}
			var cmd tea.Cmd
			p.title, cmd = p.title.Update(msg)
			p.commitEntry()
			return cmd
		}
		if p.content.Update(msg) {
			p.commitEntry()
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Close):
		if p.dirty() {
			return p.st.Push(dialog.NewUnsaved(p.st, p.what(), func() tea.Cmd { return p.saveThen(p.closeSelf) }, p.closeSelf))
		}
		return p.st.Close(p)
	case p.list.Update(msg):
	case key.Matches(msg, k.Add):
		p.setEntries(append(p.entries, memory.Entry{ID: memory.NewID()}))
		p.list.Last()
		p.openEntry(p.list.Cursor(), 0)
	case key.Matches(msg, k.Edit):
		if i := p.list.Cursor(); i >= 0 {
			p.openEntry(i, 1)
		}
	case key.Matches(msg, k.Delete):
		if i := p.list.Cursor(); i >= 0 {
			id := p.entries[i].ID
			return p.st.Push(dialog.NewConfirm(p.st, "Delete this entry?",
				fmt.Sprintf("%q is removed from the list; ctrl+s saves the change.", entryName(p.entries[i])),
				func() tea.Cmd { p.handleDelete(id); return nil }))
		}
	case key.Matches(msg, k.Preview):
		p.mode = modePreview
		p.preview.SetContent(ansi.Wrap(strings.ReplaceAll(common.Visible(memory.Frame(p.projection())), "\t", "    "), max(p.width, 20), ""))
		p.preview.GotoTop()
	}
	return nil
}

// handleDelete removes an entry from the working copy.
func (p *Page) handleDelete(id string) {
	for i, e := range p.entries {
		if e.ID == id {
			p.setEntries(append(p.entries[:i], p.entries[i+1:]...))
			break
		}
	}
}

func bindKey(k, h string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, h)) }

func (p *Page) openEntry(i, field int) {
	p.editing, p.mode, p.field = i, modeEntry, field
	// A title with control characters (the agent's, or a hostile file's)
	// is edited as the visible text it is shown as: the text field would
	// send its bytes to the terminal.
	p.title.SetValue(common.VisibleLine(p.entries[i].Title))
	p.content.SetValue(p.entries[i].Content)
	p.layout()
	p.focusField()
}

func (p *Page) focusField() {
	if p.field == 0 {
		p.title.Focus()
		p.content.Blur()
	} else {
		p.title.Blur()
		p.content.Focus()
	}
}

// commitEntry copies the entry editor's fields into the working copy.
func (p *Page) commitEntry() {
	if p.mode != modeEntry || p.editing >= len(p.entries) {
		return
	}
	e := &p.entries[p.editing]
	if e.Title != p.title.Value() || e.Content != p.content.Value() {
		// The user's text now: the agent's mark goes.
		e.By = ""
	}
	e.Title, e.Content = p.title.Value(), p.content.Value()
}

func (p *Page) projection() string { return memory.Project(memory.Normalize(p.entries, nil)) }

// saveThen saves and calls then only once the save succeeded.
func (p *Page) saveThen(then func() tea.Cmd) tea.Cmd {
	p.after = then
	return p.save()
}

func (p *Page) closeSelf() tea.Cmd { return p.st.Close(p) }

func (p *Page) save() tea.Cmd {
	if n := len(p.projection()); n > memory.LimitBytes {
		// Refused before it reaches the store; the text stays here.
		p.after = nil
		return common.Failure(&memory.TooLargeError{Bytes: n})
	}
	p.busy = "saving"
	p.dropped = 0
	for _, e := range p.entries {
		if strings.TrimSpace(e.Content) == "" {
			p.dropped++
		}
	}
	svc, base, entries, ctx := p.host.Memory, p.base, append([]memory.Entry(nil), p.entries...), p.st.Ctx
	return func() tea.Msg {
		m, err := svc.Save(ctx, base, entries)
		return savedMsg{page: p, m: m, err: err}
	}
}

// conflictDialog: someone saved this memory since it was loaded. The
// user's entries stay on screen until they choose.
func (p *Page) conflictDialog() common.Layer {
	svc, root, ctx := p.host.Memory, p.root, p.st.Ctx
	return dialog.NewChoose(p.st, "Memory changed; reload?",
		"Another editor or process saved this project's memory after you opened it. Your changes are still here.",
		dialog.Choice{Key: bindKey("r", "reload (drop my changes)"), Run: p.load},
		dialog.Choice{Key: bindKey("o", "overwrite with mine"), Run: func() tea.Cmd {
			return func() tea.Msg {
				m, err := svc.Load(ctx, root)
				var ue *memory.UnreadableError
				if err != nil && !errors.As(err, &ue) {
					return savedMsg{page: p, err: err}
				}
				return overwriteMsg{page: p, base: m}
			}
		}},
		dialog.Choice{Key: bindKey("k", "keep editing")})
}

// layout sizes the fields and the preview to what the page's wrapped
// lines (p.chrome) leave.
func (p *Page) layout() {
	chrome := max(p.chrome, 3)
	p.title.Width = max(p.width-12, 10)
	p.content.SetSize(p.width, max(p.height-chrome-4, 3))
	p.preview.Width, p.preview.Height = p.width, max(p.height-chrome-len(p.previewHead()), 3)
}

// previewHead is the line over the preview, wrapped.
func (p *Page) previewHead() []string {
	return strings.Split(common.Wrap("What a runtime receives after the project instructions (esc back):", max(p.width, 10)), "\n")
}

// entryName names an entry in the list, one line, its controls shown.
func entryName(e memory.Entry) string {
	if t := strings.TrimSpace(e.Title); t != "" {
		return common.VisibleLine(t)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(e.Content), "\n")
	if first == "" {
		return "(empty)"
	}
	return common.VisibleLine(first)
}

// View draws the page. Its sentences (the empty list's, a warning, the
// meter, the key hints) wrap at the width, never cut; the body gets the
// lines they leave.
func (p *Page) View(width, height int) string {
	st := p.st
	w := max(width, 10)
	head := p.head(w)
	if p.loadErr != "" {
		return head + "\n\n" + st.Error.Render(common.Wrap("Cannot load memory: "+p.loadErr, w)) + "\n\n" + st.Dim.Render("esc close")
	}
	if !p.loaded {
		return head
	}
	lines := []string{head}
	if p.warn != "" {
		lines = append(lines, st.Warn.Render(common.Wrap(p.warn, w)))
	}
	foot := []string{p.meter(w), p.helpLine(w)}
	chrome := 0
	for _, l := range append(append([]string(nil), lines...), foot...) {
		chrome += strings.Count(l, "\n") + 1
	}
	if width != p.width || height != p.height || chrome != p.chrome {
		p.width, p.height, p.chrome = width, height, chrome
		p.layout()
	}
	var body string
	switch p.mode {
	case modePreview:
		body = st.Dim.Render(strings.Join(p.previewHead(), "\n")) + "\n" + p.preview.View()
	case modeEntry:
		label := func(i int, s string) string {
			if p.field == i {
				return st.Key.Render("› " + s)
			}
			return "  " + s
		}
		p.content.SetSize(p.width, max(height-chrome-4, 3)) // the title and the content's label, two spare
		body = label(0, "Title   ") + p.title.View() + "\n" + label(1, "Content") + "\n" + p.content.View()
	default:
		body = p.listView(height-chrome-1, w)
	}
	lines = append(append(lines, body), foot...)
	return strings.Join(lines, "\n")
}

// head is the page's heading: the project, and whether the memory is
// modified or being loaded or saved; wrapped when the name is long.
func (p *Page) head(w int) string {
	st := p.st
	title, modified, busy := "Memory · "+p.label, "", ""
	if p.dirty() {
		modified = "  modified"
	}
	if p.busy != "" {
		busy = "  " + p.busy + "…"
	}
	if ansi.StringWidth(title+modified+busy) > w {
		return st.Title.Render(common.Wrap(title+modified+busy, w))
	}
	return st.Title.Render(title) + st.Warn.Render(modified) + st.Dim.Render(busy)
}

func (p *Page) listView(h, w int) string {
	st := p.st
	if len(p.entries) == 0 {
		// A sentence: wrapped, its key shown as a key.
		add := p.keys.Add.Help().Key
		press := "Press " + add + " "
		text := common.Wrap("No memory yet. "+press+"to add an entry: notes the agent should know about this project.", w)
		if i := strings.Index(text, press); i >= 0 {
			text = text[:i] + "Press " + st.Key.Render(add) + " " + text[i+len(press):]
		}
		return text
	}
	var lines []string
	p.list.SetLines(h)
	for i, e := range p.list.Window() {
		line := entryRow(e, w-2)
		if i == p.list.Cursor() {
			line = st.Selected.Render("› " + line)
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// entryRow is an entry's row in w cells: its size, its name (data: cut
// with … when the row is too wide) and what the row must say whole (by
// the agent, dropped on save).
func entryRow(e memory.Entry, w int) string {
	size := fmt.Sprintf("%6s B  ", common.Group(len(strings.TrimSpace(e.Content))))
	var tail string
	if e.By == memory.ByAgent {
		tail = "  · by the agent"
	}
	if strings.TrimSpace(e.Content) == "" {
		tail += "  (no content: dropped on save)"
	}
	name := entryName(e)
	if room := w - ansi.StringWidth(size+tail); room >= 8 {
		return size + ansi.Truncate(name, room, "…") + tail
	}
	return ansi.Truncate(size+name+tail, max(w, 1), "…")
}

// meter shows the projection's size against the limit; over it, saving is
// refused and the meter says so, wrapped at w.
func (p *Page) meter(w int) string {
	n := len(p.projection())
	text := fmt.Sprintf("%s / %s bytes", common.Group(n), common.Group(memory.LimitBytes)) + p.agent.meter()
	if n > memory.LimitBytes {
		return p.st.Error.Render(common.Wrap(text+fmt.Sprintf(" — %s over the limit: saving is refused until you shorten it", common.Plural(n-memory.LimitBytes, "byte")), w))
	}
	return p.st.Dim.Render(common.Wrap(text, w))
}

// helpLine is the mode's keys, wrapped between hints at w.
func (p *Page) helpLine(w int) string {
	k := p.keys
	var hints []string
	switch p.mode {
	case modeEntry:
		hints = append(common.HintList(k.Field, k.Close, k.Save), "f1 help")
	case modePreview:
		hints = common.HintList(k.Nav.Up, k.Close)
	default:
		hints = common.HintList(k.Add, k.Edit, k.Delete, k.AgentWrites, k.Save, k.Close)
	}
	return p.st.Dim.Render(common.JoinHints(hints, " · ", w))
}

// Title names the page.
func (p *Page) Title() string { return "Memory · " + p.label }

// Help lists the keys.
func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Add, k.Edit, k.Delete, k.Preview, k.Save, k.Close}, append(k.Nav.Bindings(), k.Field, k.AgentWrites)}
}

// Unsaved says the memory's changes are not saved, when they are not.
func (p *Page) Unsaved() string {
	if p.dirty() {
		return "Unsaved changes to " + p.what()
	}
	return ""
}

// what names the memory in sentences.
func (p *Page) what() string { return "the memory of " + p.label }

// CapturesText is true while an entry is being edited.
func (p *Page) CapturesText() bool { return p.mode == modeEntry }

// Entries returns the working copy (for tests).
func (p *Page) Entries() []memory.Entry { return p.entries }

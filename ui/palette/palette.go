// Package palette is the command palette: one search over every
// project, every session of every project (by name and first message),
// every setting and every command, ranked by core/fuzzy as `@` file
// completion ranks files. It floats over the tabs as a dialog on the
// shell's stack. The projects and sessions are read through the core
// services in commands when it opens (fixed items, the commands and
// settings, are searchable at once); each keystroke then searches in
// memory, narrowing the last result while the query grows.
package palette

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/fuzzy"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// Item is an entry the caller hands in: a command or a setting, and what
// enter on it does.
type Item struct {
	Kind   Kind // KindCommand or KindSetting
	Title  string
	Detail string // shown dim beside the title, and searched with it
	// Path is true when Detail is a path (a file's), which a narrow row
	// shortens in its middle rather than at its end.
	Path bool
	// Run is what enter does, after the palette has closed (it may switch
	// tabs and open layers).
	Run func() tea.Cmd
}

// Deps are what the palette reads and where its entries lead.
type Deps struct {
	UI *common.UI
	// Home writes the home folder as ~ in project paths.
	Home string
	// Projects lists every project (archived ones too); Sessions lists
	// every project's sessions. They do I/O, so they run in commands.
	Projects func(context.Context) ([]registry.Project, error)
	Sessions func(context.Context) ([]sessions.Summary, error)
	// OpenProject opens a project's sessions; OpenSession opens one of
	// its sessions in the Session tab.
	OpenProject func(registry.Project) tea.Cmd
	OpenSession func(registry.Project, sessions.Summary) tea.Cmd
}

// Keys are the palette's keys; everything else is typed into the query.
type Keys struct {
	// Nav moves the highlight: ↑/↓, ctrl+p/ctrl+n and the page keys,
	// which type nothing (home and end stay the query's).
	Nav       list.KeyMap
	Go, Close key.Binding
}

// NewKeys returns the palette's keys.
func NewKeys() Keys {
	nav := list.TypingKeyMap()
	nav.Up = key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/↓", "move (ctrl+p/ctrl+n too)"))
	nav.Down = key.NewBinding(key.WithKeys("down", "ctrl+n"))
	return Keys{Nav: nav,
		Go:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go there")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// maxRows is how many of the best matches the list holds; the footer
// says how many match in all.
const maxRows = 50

// Model is the palette.
type Model struct {
	common.DialogLayer
	d     Deps
	items []Item
	keys  Keys
	input textinput.Model
	// rows are the entries shown: indices into idx.entries, best first.
	rows    list.List[int]
	idx     *index
	matcher *fuzzy.Matcher
	total   int // entries matching the query, shown or not
	// ctx is the palette's life: its loads stop when it closes.
	ctx     context.Context
	cancel  context.CancelFunc
	loading string // what is being read ("projects", "sessions"), "" when done
	errs    []string
}

// New returns the palette over items (the commands and settings of the
// moment); the projects and sessions are read once it is pushed (Init).
func New(d Deps, items []Item) *Model {
	in := textinput.New()
	d.UI.StyleTextInput(&in)
	in.Prompt = "> "
	in.Placeholder = "a session, project, setting or command"
	in.PlaceholderStyle = d.UI.Dim // the program's renderer, not the package default
	in.CharLimit = 256
	in.Focus()
	m := &Model{d: d, items: items, keys: NewKeys(), input: in}
	m.rows = list.New[int](m.keys.Nav)
	m.ctx, m.cancel = context.WithCancel(d.UI.Ctx)
	m.use(build(items, nil, nil, d.Home))
	return m
}

// loadedMsg carries a new index for the palette that asked for it.
type loadedMsg struct {
	to   *Model
	idx  *index
	next tea.Cmd // the next read, when there is one
	err  string
}

// Init reads the projects, then the sessions.
func (m *Model) Init() tea.Cmd {
	m.loading = "projects"
	to, d, ctx, items := m, m.d, m.ctx, m.items
	return func() tea.Msg {
		ps, err := d.Projects(ctx)
		if err != nil {
			return loadedMsg{to: to, err: "cannot read the projects: " + err.Error()}
		}
		return loadedMsg{to: to, idx: build(items, ps, nil, d.Home), next: loadSessions(to, d, ctx, items, ps)}
	}
}

// loadSessions reads every project's sessions, for the palette to.
func loadSessions(to *Model, d Deps, ctx context.Context, items []Item, ps []registry.Project) tea.Cmd {
	return func() tea.Msg {
		ss, err := d.Sessions(ctx)
		if err != nil {
			return loadedMsg{to: to, err: "cannot read the sessions: " + err.Error()}
		}
		return loadedMsg{to: to, idx: build(items, ps, ss, d.Home)}
	}
}

// use searches idx from now on. A cursor the user moved stays on its
// entry; otherwise it stays on the first, the best match.
func (m *Model) use(idx *index) {
	keep := ""
	if e, ok := m.selected(); ok && m.rows.Cursor() > 0 {
		keep = e.id
	}
	m.idx, m.matcher = idx, fuzzy.NewMatcher(idx.texts)
	m.search()
	if keep != "" {
		m.rows.Select(func(i int) bool { return m.idx.entries[i].id == keep })
	}
}

// search shows the best entries for the query: with nothing typed, every
// entry in the index's order (recent sessions first).
func (m *Model) search() {
	q := m.input.Value()
	var rows []int
	if q == "" {
		_, m.total = m.matcher.Top("", 0) // resets the matcher's narrowing
		for i := range min(m.total, maxRows) {
			rows = append(rows, i)
		}
	} else {
		var top []fuzzy.Match
		top, m.total = m.matcher.Top(q, maxRows)
		rows = make([]int, len(top))
		for i, t := range top {
			rows[i] = t.Index
		}
	}
	m.rows.SetItems(rows)
	m.rows.First()
}

func (m *Model) selected() (entry, bool) {
	if m.idx == nil {
		return entry{}, false
	}
	i, ok := m.rows.Selected()
	if !ok {
		return entry{}, false
	}
	return m.idx.entries[i], true
}

// Update handles keys and the palette's loads.
func (m *Model) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.to != m {
			return m, nil
		}
		if msg.err != "" {
			m.errs = append(m.errs, msg.err)
			m.loading = ""
			return m, nil
		}
		m.use(msg.idx)
		m.loading = ""
		if msg.next != nil {
			m.loading = "sessions"
		}
		return m, msg.next
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Close):
		return m.close()
	case key.Matches(msg, m.keys.Go):
		e, ok := m.selected()
		if !ok {
			return nil
		}
		cmd := m.close()
		return tea.Batch(cmd, m.run(e))
	case m.rows.Update(msg):
		return nil
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() != before {
		m.search()
	}
	return cmd
}

// close ends the palette and its loads.
func (m *Model) close() tea.Cmd {
	m.cancel()
	return m.d.UI.Close(m)
}

// run goes to entry e.
func (m *Model) run(e entry) tea.Cmd {
	switch e.kind {
	case KindSession:
		return m.d.OpenSession(m.idx.projects[e.project], m.idx.sessions[e.at])
	case KindProject:
		return m.d.OpenProject(m.idx.projects[e.at])
	}
	if run := m.items[e.at].Run; run != nil {
		return run()
	}
	return nil
}

// Layout of the box: the border (2 lines), the title, the query, a blank
// line, the rows, a blank line and the footer.
const (
	chrome  = 7
	minRows = 3
	// maxShown is the most rows the box shows: past it a taller terminal
	// gets no taller box, as a menu would not.
	maxShown = 20
)

// View draws the palette: as wide as the screen allows up to 100 cells,
// and as tall, less a line above and below, up to maxShown rows, whatever
// the number of matches, so the box does not jump while typing.
func (m *Model) View(width, height int) string {
	st := m.d.UI
	w := min(max(width-4, 30), 100)
	inner := w - 4 // border and padding
	lines := min(max(height-chrome-2, minRows), maxShown)
	m.rows.SetLines(lines)
	m.input.Width = max(inner-3, 5)

	var b strings.Builder
	b.WriteString(st.DialogHead.Render("Go to") + st.Dim.Render("  sessions · projects · settings · commands") + "\n")
	b.WriteString(m.input.View() + "\n\n")
	shown := 0
	cursor := m.rows.Cursor()
	for i, at := range m.rows.Window() {
		b.WriteString(m.row(m.idx.entries[at], i == cursor, inner) + "\n")
		shown++
	}
	if shown == 0 {
		b.WriteString(st.Dim.Render(m.empty()) + "\n")
		shown++
	}
	b.WriteString(strings.Repeat("\n", max(lines-shown, 0)))
	b.WriteString("\n" + m.footer(inner))
	return st.Dialog.Width(w).Render(b.String())
}

// kindWidth pads the kind words to one column.
const kindWidth = len("session") + 2

// row draws one entry: its kind, its title and, dim, its detail, in
// width cells. When both do not fit, the detail keeps up to two fifths
// of the row (what tells two sessions or projects apart: the project, the
// folder's last names) and the title is cut with "…" to what is left.
func (m *Model) row(e entry, selected bool, width int) string {
	st := m.d.UI
	head := fmt.Sprintf("  %-*s", kindWidth, e.kind)
	avail := max(width-len(head), 1)
	detail := ""
	if room := max(avail-ansi.StringWidth(e.title)-2, avail*2/5-2); e.detail != "" && room > 3 {
		detail = "  " + fitDetail(e, room)
	}
	title := ansi.Truncate(e.title, max(avail-ansi.StringWidth(detail), 1), "…")
	if selected {
		// Marked as the other lists mark their row, so it shows without
		// colour too (NO_COLOR).
		return st.Selected.Render("›" + head[1:] + title + detail)
	}
	return st.Dim.Render(head) + title + st.Dim.Render(detail)
}

// fitDetail is e's detail and note in width cells, whole where they fit.
// Else a path loses folders from its middle, keeping its last ones
// (common.ShortPath), so that a project's note (folder missing) still
// shows while the folder's last name does; a session's time goes and its
// project is cut with "…"; other text (a command's description) is cut
// with "…".
func fitDetail(e entry, width int) string {
	if whole := e.detail + e.note; ansi.StringWidth(whole) <= width {
		return whole
	}
	if e.path {
		// The note, unless the folder's last name would no longer show
		// whole beside it: that name tells the project apart.
		_, last := filepath.Split(strings.TrimSuffix(e.detail, "/"))
		if room := width - ansi.StringWidth(e.note); room >= min(ansi.StringWidth(e.detail), ansi.StringWidth("…/"+last)) {
			return common.ShortPath(e.detail, room) + e.note
		}
		return common.ShortPath(e.detail, width)
	}
	return ansi.Truncate(e.detail, width, "…")
}

// empty says why no row shows.
func (m *Model) empty() string {
	if m.input.Value() == "" {
		return "  nothing to go to yet"
	}
	if m.loading != "" {
		return "  nothing matches yet; still reading the " + m.loading + "…"
	}
	return "  nothing matches " + fmt.Sprintf("%q", common.VisibleLine(m.input.Value()))
}

// footer counts the matches, says what is still being read and which
// keys go and close; it wraps rather than cutting a word, and so does an
// error reading.
func (m *Model) footer(width int) string {
	st := m.d.UI
	n := len(m.idx.entries)
	parts := []string{fmt.Sprintf("%s of %s match", common.Group(m.total), common.Group(n))}
	if m.input.Value() == "" {
		parts[0] = common.Plural(n, "place") + " to go"
	}
	if m.loading != "" {
		parts = append(parts, "reading the "+m.loading+"…")
	}
	parts = append(parts, common.Hints(m.keys.Go, m.keys.Close))
	out := st.Dim.Render(common.Wrap(strings.Join(parts, " · "), width))
	for _, e := range m.errs {
		out += "\n" + st.Error.Render(common.Wrap(common.VisibleLine(e), width))
	}
	return out
}

// Title names the palette in help.
func (m *Model) Title() string { return "Command palette" }

// Help lists the palette's keys.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{{k.Go, k.Close}, k.Nav.Bindings()}
}

// CapturesText is true: what is typed is the query.
func (m *Model) CapturesText() bool { return true }

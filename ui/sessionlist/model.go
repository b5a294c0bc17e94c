// Package sessionlist is the Session tab's list of a project's sessions:
// newest first, filtered by title and content, each with its worktree
// (branch, changes, or why its binding is invalid), and the actions on
// them: open, new (in the project or in a worktree of its own), rename,
// delete, and a worktree's diff, merge and discard. Opening and starting
// sessions are the chat's: the list asks for them through Actions.
//
// The files hold one part each: model.go the model and its messages;
// list.go the list's keys, dialogs and view; filter.go the filter;
// worktree.go the worktree sessions; diffpage.go a worktree's diff.
package sessionlist

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// Deps are what the list needs from the program.
type Deps struct {
	// Ctx lives as long as the program: the list's reads stop with it.
	Ctx context.Context
	// Store lists the sessions; Sessions names and deletes one; Worktrees
	// acts on their worktrees (services.go). A nil Store lists nothing.
	Store     Store
	Sessions  Sessions
	Worktrees Worktrees
	UI        *common.UI
}

// Actions are what the list asks of the chat beside it; the Session tab
// wires them. Each returns the command that opens the session.
type Actions struct {
	Open          func(id string) tea.Cmd // open a listed session
	New           func() tea.Cmd          // a new session in the project
	NewInWorktree func() tea.Cmd          // a new session in a git worktree of its own
	Export        func(id string) tea.Cmd // write a session to share (an HTML page)
	Import        func() tea.Cmd          // import other agents' sessions
}

// Keys of the session list.
type Keys struct {
	Open, New, Rename, Delete, Filter key.Binding
	// Export writes the selected session as an HTML page; Import brings
	// in Claude Code's, Codex's and opencode's sessions.
	Export, Import key.Binding
	// The worktree keys (worktree.go): a new session in a worktree, its
	// diff, merge and discard.
	Worktree, Diff, Merge, Discard key.Binding
	// The moving keys (ui/list): ↑/k ↓/j home/g end/G.
	Up, Down, First, Last key.Binding
	// While the filter has the keys: esc clears it (the partner of /),
	// enter opens the selected match (the partner of enter) and the
	// arrows move through the matches; they type nothing.
	ClearFilter, OpenMatch key.Binding
	FilterMoves            list.KeyMap
}

func defaultKeys() Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return Keys{
		Open:     b("enter", "open session", "enter"),
		Rename:   b("r", "rename", "r"),
		Delete:   b("D", "delete", "D"),
		Filter:   b("/", "filter by title and content", "/"),
		Export:   b("e", "export as an HTML page", "e"),
		Import:   b("I", "import Claude Code, Codex, opencode sessions", "I"),
		New:      b("n", "new session", "n"),
		Worktree: b("w", "new session in a git worktree", "w"),
		Diff:     b("d", "worktree diff", "d"),
		Merge:    b("M", "merge worktree", "M"),
		Discard:  b("X", "discard worktree", "X"),
		Up:       b("↑/k", "up", "up", "k"),
		Down:     b("↓/j", "down", "down", "j"),
		First:    b("home/g", "first session", "home", "g"),
		Last:     b("end/G", "last session", "end", "G"),

		ClearFilter: key.NewBinding(key.WithKeys("esc")),
		OpenMatch:   key.NewBinding(key.WithKeys("enter")),
		FilterMoves: list.KeyMap{Up: key.NewBinding(key.WithKeys("up")), Down: key.NewBinding(key.WithKeys("down"))},
	}
}

// nav is the list's moving keys when the list has the keyboard.
func (k Keys) nav() list.KeyMap {
	return list.KeyMap{Up: k.Up, Down: k.Down, Top: k.First, Bottom: k.Last}
}

// Model is the session list of the open project.
type Model struct {
	d    Deps
	act  Actions
	keys Keys
	ctx  context.Context

	project *registry.Project
	// rows are the sessions, newest first, with the cursor; the filter
	// is their filter hook.
	rows    list.List[sessions.Summary]
	listErr string
	filter  listFilter // the list's filter
	wt      worktrees  // the listed sessions' worktrees (worktree.go)

	width, height int
}

// New returns the list; it shows no project until Open.
func New(d Deps, act Actions) *Model {
	m := &Model{d: d, act: act, keys: defaultKeys(), ctx: d.Ctx}
	m.rows = list.New[sessions.Summary](m.keys.nav())
	m.rows.Height = m.rowHeight
	m.wt.svc = d.Worktrees // the runtimes' own: one verification, one cache
	return m
}

// Init brings the session counts in line with the session folders.
func (m *Model) Init() tea.Cmd { return m.reconcile() }

// reconcile brings the count of each project's sessions in line with its
// session folder (sessions begun in pi, files removed by hand), off the UI
// goroutine, and has the lists reloaded when a count moved.
func (m *Model) reconcile() tea.Cmd {
	if m.d.Store == nil {
		return nil
	}
	sm, ctx := m.d.Store, m.ctx
	return func() tea.Msg {
		if changed, err := sm.Reconcile(ctx); err == nil && changed {
			return common.ProjectsChangedMsg{}
		}
		return nil
	}
}

// Open shows project p's sessions.
func (m *Model) Open(p registry.Project) tea.Cmd {
	m.project = &p
	return m.loadList()
}

// Reload reads the list again (a session was opened, sent to, renamed).
func (m *Model) Reload() tea.Cmd { return m.loadList() }

// Listed returns session id's row as last read.
func (m *Model) Listed(id string) (sessions.Summary, bool) {
	for _, s := range m.rows.Items() {
		if s.ID == id {
			return s, true
		}
	}
	return sessions.Summary{}, false
}

// SetSize sets the area the list draws in.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Filtering reports whether keys go to the filter.
func (m *Model) Filtering() bool { return m.filter.on }

// Help lists the list's keys.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	if m.project == nil {
		return nil // no list yet: only the program's own keys work here
	}
	return [][]key.Binding{{k.Open, k.New, k.Rename, k.Delete, k.Filter}, {k.Export, k.Import}, {k.Worktree, k.Diff, k.Merge, k.Discard}, {k.Up, k.Down, k.First, k.Last}}
}

// Update handles the list's messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.updateWorktrees(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case listMsg:
		m.listErr = ""
		if msg.err != nil {
			m.listErr = common.Visible(msg.err.Error()) // may name a file
		}
		m.wt.of = msg.of // before the rows: a row's height depends on it
		m.rows.SetItems(msg.list)
		return m.loadStatuses()
	case contentMsg:
		if msg.seq == m.filter.seq && m.filter.on {
			m.filter.content = msg.hits
			m.rows.SetFilter(m.filter.matches)
		}
		return nil
	case RenamedMsg:
		return tea.Batch(common.Notice("named %q", msg.Title), m.loadList())
	case deletedMsg:
		return tea.Batch(common.Notice("session deleted"), m.loadList(), func() tea.Msg { return common.ProjectsChangedMsg{} })
	case tea.KeyMsg:
		if m.project == nil {
			return nil // nothing to list or open: the view says where to go
		}
		return m.listKey(msg)
	}
	return nil
}

// View draws the list.
func (m *Model) View() string {
	if m.project == nil {
		st := m.d.UI
		return st.Title.Render("Session") + "\n\n" + "No project is open. In Projects, select one and press o to open its sessions." + "\n\n" + st.Dim.Render("1 Projects · ? help")
	}
	return m.listView()
}

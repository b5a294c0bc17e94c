// Package session is the Session tab: a project's sessions (newest first,
// new or resume) and the chat with the agent: a transcript with markdown,
// streamed answers, tool calls with their preflight markers and the
// instructions their results carried, approvals, and the runtime's state.
// The runtime works on its own goroutines; its events arrive through a
// queue as messages, and every action starts as a command.
//
// The files hold one part each: session.go the tab's model, routing and
// layout; list.go the session list; chat.go the chat (keys, sending, the
// runtime's events, the transcript's frame); transcript.go the transcript's
// items; commands.go slash commands and their completion; tree.go /tree,
// /model and the inspector's loading; approval.go approvals; status.go the
// state line; thinking.go thinking levels; bridge.go the event queue.
package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtime"
	coresession "github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Deps are what the tab needs from the program.
type Deps struct {
	Host     *host.Host
	Runtimes *runtime.Manager
	UI       *common.UI
	Markdown func(text string, width int) (string, error)
	Env      func(string) string
}

// Keys of the chat.
type Keys struct {
	Rename, Delete, Filter                                                                    key.Binding // the session list's
	Send, Newline, Abort, HistPrev, HistNext, ScrollUp, ScrollDown, Tools, Thinking, Sessions key.Binding
	Level                                                                                     key.Binding // cycles the thinking level
	ToolPrev, ToolNext                                                                        key.Binding // select the call ctrl+o acts on (tools.go)
	Open, New, Up, Down, First, Last                                                          key.Binding
	// The list's worktree keys (worktree.go): a new session in a worktree,
	// its diff, merge and discard.
	Worktree, Diff, Merge, Discard key.Binding
}

func defaultKeys() Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return Keys{
		Send:       b("enter", "send", "enter"),
		Newline:    b("alt+enter/ctrl+j", "new line", "alt+enter", "ctrl+j"),
		Abort:      b("esc", "abort the turn", "esc"),
		HistPrev:   b("↑", "earlier message", "up"),
		HistNext:   b("↓", "later message", "down"),
		ScrollUp:   b("pgup", "scroll up", "pgup", "shift+up"),
		ScrollDown: b("pgdn", "scroll down", "pgdown", "shift+down"),
		Tools:      b("ctrl+o", "expand/collapse a tool call's output", "ctrl+o"),
		ToolPrev:   b("alt+↑", "select an earlier tool call", "alt+up"),
		ToolNext:   b("alt+↓", "select a later tool call", "alt+down"),
		Thinking:   b("ctrl+t", "show thinking", "ctrl+t"),
		Level:      b("shift+tab", "thinking level", "shift+tab"),
		Sessions:   b("ctrl+l", "sessions", "ctrl+l"),
		Open:       b("enter", "open session", "enter"),
		Rename:     b("r", "rename", "r"),
		Delete:     b("D", "delete", "D"),
		Filter:     b("/", "filter by title and content", "/"),
		New:        b("n", "new session", "n"),
		Worktree:   b("w", "new session in a git worktree", "w"),
		Diff:       b("d", "worktree diff", "d"),
		Merge:      b("M", "merge worktree", "M"),
		Discard:    b("X", "discard worktree", "X"),
		Up:         b("↑/k", "up", "up", "k"),
		Down:       b("↓/j", "down", "down", "j"),
		First:      b("home/g", "first session", "home", "g"),
		Last:       b("end/G", "last session", "end", "G"),
	}
}

// Model is the Session tab.
type Model struct {
	d    Deps
	keys Keys
	br   *bridge
	// ctx lives as long as the program: closing it (the terminal or SSH
	// client went away) aborts a running turn and ends the program's
	// subscription to the core's events.
	ctx       context.Context
	cancel    context.CancelFunc
	stopWatch func()               // stops waiting for other writers' arrivals in the open session
	open      *coresession.Session // the open session, for rereading it

	project *projects.Project
	list    []coresession.Summary
	cursor  int
	listErr string
	filter  listFilter // the session list's filter

	sid      string // the open session, "" in the list
	title    string
	items    []*item
	live     *item            // the streaming answer
	calls    map[string]*item // running tool calls by id
	bottom   int              // lines scrolled up from the bottom
	input    *input
	history  []string
	histPos  int
	queue    []string
	working  bool
	model    string         // model spec chosen with /model ("" = default)
	level    string         // thinking level chosen with shift+tab or /thinking ("" = default)
	think    thinkState     // the level in effect and the levels the model has
	running  string         // the model the runtime runs, from its events
	ended    bool           // agent_end arrived for the current prompt
	ownTurn  bool           // the turn running is this program's (else another's: reread at its ends)
	branch   string         // the open session's worktree branch, "" when it works in the project
	invalid  string         // why the open session's worktree binding is invalid (it works in nothing)
	failed   string         // the current prompt's error, once shown
	retry    *item          // the notice of the current call's retries
	lastCall provider.Usage // the last model call, for the context meter
	runtime  string         // none, idle, working, retired
	lastRT   string         // last launch/reuse/retire with its reason
	usage    provider.Usage
	window   int
	sel      *item // the tool call ctrl+o acts on (nil: the latest; tools.go)
	ticking  bool  // a tick redraws running tool calls' time
	thinking bool
	asks     []*approvalDialog // open approval dialogs, oldest first
	cmds     []skills.Command  // the session's skills and templates (commands.go)
	cmdWarn  []string          // skill and template files skipped
	comp     completer         // the /command and @file menu (complete.go)
	wt       worktrees         // the list's worktree sessions (worktree.go)

	width, height int
}

// New returns the tab; Init starts listening to the runtime.
func New(d Deps) *Model {
	m := &Model{d: d, keys: defaultKeys(), calls: map[string]*item{}, runtime: "none",
		input: newInput(d.UI)}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.br = newBridge(m.ctx, d.Runtimes.Events())
	if d.Host != nil {
		m.wt.svc = d.Runtimes.Worktrees() // the runtimes' own: one verification, one cache
	}
	return m
}

// Close releases the view when its program ends: it aborts a running turn
// and ends its subscription; the questions only it showed are denied.
func (m *Model) Close() {
	m.closeAsks()
	m.cancel()
}

// Init starts delivering runtime events.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.br.wait(), m.reconcile()) }

// reconcile brings the count of each project's sessions in line with its
// session folder (sessions begun in pi, files removed by hand), off the UI
// goroutine, and has the lists reloaded when a count moved.
func (m *Model) reconcile() tea.Cmd {
	if m.d.Runtimes == nil {
		return nil
	}
	sm, ctx := m.d.Runtimes.Sessions(), m.ctx
	return func() tea.Msg {
		if changed, err := sm.Reconcile(ctx); err == nil && changed {
			return common.ProjectsChangedMsg{}
		}
		return nil
	}
}

// SetSize sets the area the tab draws in.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.fit(w, h)
}

// CapturesText reports whether keys go to the input.
func (m *Model) CapturesText() bool { return m.sid != "" || m.filter.on }

// Busy reports whether the agent is working, so quitting asks first.
func (m *Model) Busy() bool { return m.working }

// Help lists the keys of the current mode.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	if m.project == nil {
		return nil // no list yet: only the program's own keys work here
	}
	if m.sid == "" {
		return [][]key.Binding{{k.Open, k.New, k.Rename, k.Delete, k.Filter}, {k.Worktree, k.Diff, k.Merge, k.Discard}, {k.Up, k.Down, k.First, k.Last}}
	}
	e := m.input.KeyMap()
	return [][]key.Binding{{k.Send, k.Newline, k.Abort, menuKeys.Commands, menuKeys.At}, {menuKeys.Pick, menuKeys.Up, menuKeys.Close}, {k.HistPrev, k.HistNext, k.ScrollUp, k.ScrollDown},
		{k.Tools, k.ToolPrev, k.ToolNext, k.Thinking, k.Level, k.Sessions}, {e.Home, e.WordLeft, e.DeleteWord, e.KillLine, e.KillStart, e.Undo, e.Redo}}
}

// Open shows project p's sessions.
func (m *Model) Open(p projects.Project) tea.Cmd {
	if m.working {
		return common.Failure(fmt.Errorf("the agent is working in %s; press esc in the Session tab to abort it first", m.project.Name))
	}
	m.project = &p
	m.close()
	return m.loadList()
}

func (m *Model) close() {
	// Leaving a session closes its questions here; the core denies them
	// when no other program shows the session: keys typed while looking
	// at another session must never answer it, and its agent must not
	// wait forever.
	m.closeAsks()
	m.br.show("")
	if m.stopWatch != nil {
		m.stopWatch()
		m.stopWatch = nil
	}
	m.sid, m.items, m.live, m.calls, m.queue = "", nil, nil, map[string]*item{}, nil
	m.working, m.runtime, m.lastRT, m.running, m.model, m.level, m.think = false, "none", "", "", "", "", thinkState{}
	m.usage, m.lastCall = provider.Usage{}, provider.Usage{}
}

// Update handles the tab's messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.updateCommands(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateRemember(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateTools(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateWorktrees(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case eventsMsg:
		var cmds []tea.Cmd
		for _, e := range msg {
			cmds = append(cmds, m.event(e))
		}
		return tea.Batch(append(cmds, m.br.wait())...)
	case listMsg:
		m.list, m.listErr = msg.list, ""
		if msg.err != nil {
			m.listErr = msg.err.Error()
		}
		m.cursor = min(m.cursor, max(len(m.list)-1, 0))
		m.wt.of = msg.of
		return m.loadStatuses()
	case openedMsg:
		if msg.err != nil {
			return common.Failure(msg.err)
		}
		m.close()
		m.sid, m.title, m.open = msg.id, msg.title, msg.sess
		m.branch, m.invalid = msg.branch, msg.invalid
		var wctx context.Context
		// The watch ends with the program (m.ctx) if not before.
		wctx, m.stopWatch = context.WithCancel(m.ctx)
		m.items = itemsFrom(msg.entries)
		m.model = modelOf(msg.entries)
		m.level = levelOf(msg.entries)
		m.bottom = 0
		m.br.show(m.sid) // its events and questions, an open one included
		st := m.d.Runtimes.State(m.sid)
		m.runtime = st.Runtime
		var say tea.Cmd
		if msg.input != "" {
			m.input.SetValue(msg.input)
			m.input.fit(m.width, m.height)
		}
		if msg.notice != "" {
			say = common.Notice("%s", msg.notice)
		}
		if msg.invalid != "" {
			say = common.Failure(errors.New(msg.invalid))
		}
		return tea.Batch(m.loadCommands(), m.describe(), m.watchArrivals(wctx, m.sid, msg.sess), say, m.loadList())
	case arrivedMsg:
		if msg.id != m.sid {
			return nil
		}
		s := msg.sess
		return func() tea.Msg { return refreshedMsg{id: msg.id, entries: s.Path(), sess: s} }
	case refreshedMsg:
		if msg.id != m.sid || m.stopWatch == nil {
			return nil
		}
		if !m.working && len(m.calls) == 0 {
			// Mid-turn the live items show our own turn; the reread
			// transcript replaces them once the turn is over. Another
			// program's turn shows what it stored (its prompt) with the
			// text streaming after it; its end rereads the whole.
			m.items = itemsFrom(msg.entries)
			if m.live != nil {
				m.items = append(m.items, m.live)
			}
			m.model, m.level = modelOf(msg.entries), levelOf(msg.entries)
		}
		wctx, cancel := context.WithCancel(m.ctx)
		m.stopWatch()
		m.stopWatch = cancel
		return tea.Batch(m.watchArrivals(wctx, m.sid, msg.sess), m.loadList())
	case describedMsg:
		m.described(msg)
		return nil
	case promptDoneMsg:
		if msg.id != m.sid {
			return nil
		}
		m.working = false
		var cmd tea.Cmd
		if msg.err != nil && !m.ended && !errors.Is(msg.err, context.Canceled) {
			m.failure(msg.err.Error()) // failed before the agent could say so
		}
		if msg.unsent != "" {
			m.restoreInput(msg.unsent)
			if n := len(m.items); n > 0 && m.items[n-1].kind == kindUser && m.items[n-1].text == msg.unsent {
				m.items = m.items[:n-1]
			} else if n > 1 && m.items[n-2].kind == kindUser && m.items[n-2].text == msg.unsent {
				m.items = append(m.items[:n-2], m.items[n-1])
			}
		}
		if len(m.queue) > 0 {
			next := m.queue[0]
			m.queue = m.queue[1:]
			cmd = m.sendWithFiles(next)
		}
		return tea.Batch(cmd, m.loadList())
	case contentMsg:
		if msg.seq == m.filter.seq && m.filter.on {
			m.filter.content = msg.hits
		}
		return nil
	case renamedMsg:
		if msg.id == m.sid {
			m.title = msg.title
		}
		return tea.Batch(common.Notice("named %q", msg.title), m.loadList())
	case deletedMsg:
		if msg.id == m.sid {
			m.close()
		}
		return tea.Batch(common.Notice("session deleted"), m.loadList(), func() tea.Msg { return common.ProjectsChangedMsg{} })
	case treeMsg:
		if m.sid != "" {
			return m.showTree(msg)
		}
		return nil
	case modelsMsg:
		if m.sid != "" {
			return m.showModels(msg.refs, msg.current, msg.err)
		}
		return nil
	case branchedMsg:
		m.handleBranched(msg)
		if msg.edit {
			return common.Notice("branched: the old branch is kept; edit the message and press enter")
		}
		return common.Notice("branched: the old branch is kept; your next message continues from this entry")
	case tea.KeyMsg:
		if m.project == nil {
			return nil // nothing to list or open: the view says where to go
		}
		if m.sid == "" {
			return m.listKey(msg)
		}
		return m.chatKey(msg)
	}
	return nil
}

// firstMessage returns the open session's first message as the list has
// it, else the first one in its transcript.
func (m *Model) firstMessage() string {
	for _, s := range m.list {
		if s.ID == m.sid && s.FirstMessage != "" {
			return s.FirstMessage
		}
	}
	for _, it := range m.items {
		if it.kind == kindUser {
			it.decode()
			return it.text
		}
	}
	return ""
}

// View draws the tab.
func (m *Model) View() string {
	st := m.d.UI
	if m.project == nil {
		return st.Title.Render("Session") + "\n\n" + "No project is open. In Projects, select one and press o to open its sessions." + "\n\n" + st.Dim.Render("1 Projects · ? help")
	}
	if m.sid == "" {
		return m.listView()
	}
	var b strings.Builder
	// Called as the list calls it (its name, else the first line of its
	// first message), clipped to the line.
	title := sessionTitle(m.title, m.firstMessage())
	switch {
	case title == "" && len(m.items) == 0:
		title = "new session"
	case title == "":
		title = "unnamed session"
	}
	head := "Session · " + common.VisibleLine(m.project.Name)
	if m.branch != "" {
		// The files it changes are the worktree's, not the checkout's.
		head += " ⎇ " + common.VisibleLine(m.branch)
	}
	if m.invalid != "" {
		head += " ⚠ worktree binding invalid"
	}
	b.WriteString(st.Title.Render(head) + st.Dim.Render("  "+ansi.Truncate(title, max(m.width-30, 10), "…")) + "\n")
	menu := m.suggestionLines()
	b.WriteString(m.transcript(max(m.transcriptHeight()-len(menu), 1)) + "\n")
	for _, l := range menu {
		b.WriteString(l + "\n")
	}
	b.WriteString(st.Dim.Render(m.stateLine()) + "\n")
	b.WriteString(m.input.View())
	return b.String()
}

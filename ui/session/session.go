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

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtime"
	coresession "github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/editor"
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
	Send, Newline, Abort, HistPrev, HistNext, ScrollUp, ScrollDown, Tools, Thinking, Sessions key.Binding
	Level                                                                                     key.Binding // cycles the thinking level
	ToolPrev, ToolNext                                                                        key.Binding // select the call ctrl+o acts on (tools.go)
	Open, New, Up, Down                                                                       key.Binding
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
		New:        b("n", "new session", "n"),
		Up:         b("↑/k", "up", "up", "k"),
		Down:       b("↓/j", "down", "down", "j"),
	}
}

// Model is the Session tab.
type Model struct {
	d    Deps
	keys Keys
	br   *bridge
	sub  func()
	// ctx lives as long as the program: closing it (the terminal or SSH
	// client went away) aborts a running turn and unblocks an approval.
	ctx       context.Context
	cancel    context.CancelFunc
	unApprove func() // removes this view's approver for the open session
	stopWatch func() // stops waiting for other writers' arrivals in the open session

	project *projects.Project
	list    []coresession.Summary
	cursor  int
	listErr string

	sid      string // the open session, "" in the list
	title    string
	items    []*item
	live     *item            // the streaming answer
	calls    map[string]*item // running tool calls by id
	bottom   int              // lines scrolled up from the bottom
	input    *editor.Buffer
	history  []string
	histPos  int
	queue    []string
	working  bool
	model    string         // model spec chosen with /model ("" = default)
	level    string         // thinking level chosen with shift+tab or /thinking ("" = default)
	think    thinkState     // the level in effect and the levels the model has
	running  string         // the model the runtime runs, from its events
	ended    bool           // agent_end arrived for the current prompt
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

	width, height int
}

// New returns the tab; Init starts listening to the runtime.
func New(d Deps) *Model {
	m := &Model{d: d, keys: defaultKeys(), calls: map[string]*item{}, runtime: "none",
		input: editor.New(d.UI.Cursor, d.UI.Gutter)}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.br = newBridge(m.ctx.Done())
	m.input.HideEnd()
	m.input.SetPrompt("› ")
	m.sub = d.Runtimes.Subscribe(func(e agent.Event) { m.br.push(e) })
	return m
}

// Close releases the view when its program ends: it aborts a running turn,
// stops listening to the runtime and hands approvals back.
func (m *Model) Close() {
	m.denyAsks()
	m.cancel()
	m.sub()
	if m.unApprove != nil {
		m.unApprove()
		m.unApprove = nil
	}
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
	m.input.SetSize(w, m.inputHeight())
}

func (m *Model) inputHeight() int { return min(max(m.input.Lines(), 2), 6) }

// CapturesText reports whether keys go to the input.
func (m *Model) CapturesText() bool { return m.sid != "" }

// Busy reports whether the agent is working, so quitting asks first.
func (m *Model) Busy() bool { return m.working }

// Help lists the keys of the current mode.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	if m.sid == "" {
		return [][]key.Binding{{k.Open, k.New, k.Up, k.Down}}
	}
	cmds := key.NewBinding(key.WithKeys("/"), key.WithHelp("/compact /tree", "/new /model /thinking /context, /skill:name, /template"))
	return [][]key.Binding{{k.Send, k.Newline, k.Abort, cmds, completeKey}, {k.HistPrev, k.HistNext, k.ScrollUp, k.ScrollDown}, {k.Tools, k.ToolPrev, k.ToolNext, k.Thinking, k.Level, k.Sessions}}
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
	// Leaving a session denies what it still asks (a turn another
	// program started): keys typed while looking at another session must
	// never answer it, and its agent must not wait forever.
	m.denyAsks()
	if m.stopWatch != nil {
		m.stopWatch()
		m.stopWatch = nil
	}
	if m.unApprove != nil {
		m.unApprove()
		m.unApprove = nil
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
		return nil
	case openedMsg:
		if msg.err != nil {
			return common.Failure(msg.err)
		}
		m.close()
		m.sid, m.title = msg.id, msg.title
		var wctx context.Context
		wctx, m.stopWatch = context.WithCancel(context.Background())
		m.items = itemsFrom(msg.entries)
		m.model = modelOf(msg.entries)
		m.level = levelOf(msg.entries)
		m.bottom = 0
		m.unApprove = m.d.Runtimes.SetApprover(m.sid, m.br.approver(m.sid, m.project.Root))
		st := m.d.Runtimes.State(m.sid)
		m.runtime = st.Runtime
		return tea.Batch(m.loadCommands(), m.describe(), m.watchArrivals(wctx, m.sid, msg.sess))
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
		if !m.working {
			// Mid-turn the live items show our own turn; the reread
			// transcript replaces them once the turn is over.
			m.items = itemsFrom(msg.entries)
			m.model, m.level = modelOf(msg.entries), levelOf(msg.entries)
		}
		wctx, cancel := context.WithCancel(context.Background())
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
		if len(m.queue) > 0 {
			next := m.queue[0]
			m.queue = m.queue[1:]
			cmd = m.send(next)
		}
		return tea.Batch(cmd, m.loadList())
	case treeMsg:
		if m.sid != "" {
			return m.showTree(msg.path)
		}
		return nil
	case modelsMsg:
		if m.sid != "" {
			return m.showModels(msg.refs, msg.err)
		}
		return nil
	case branchedMsg:
		m.handleBranched(msg)
		return common.Notice("branched: the old branch is kept; edit the message and press enter")
	case tea.KeyMsg:
		if m.sid == "" {
			return m.listKey(msg)
		}
		return m.chatKey(msg)
	}
	return nil
}

// View draws the tab.
func (m *Model) View() string {
	st := m.d.UI
	if m.project == nil {
		return st.Title.Render("Session") + "\n\n" + "Open a project's session from Projects: enter, then o." + "\n\n" + st.Dim.Render("1 Projects · ? help")
	}
	if m.sid == "" {
		return m.listView()
	}
	var b strings.Builder
	title := m.title
	if title == "" {
		title = "new session"
	}
	b.WriteString(st.Title.Render("Session · "+common.VisibleLine(m.project.Name)) + st.Dim.Render("  "+ansi.Truncate(common.VisibleLine(title), max(m.width-30, 10), "…")) + "\n")
	menu := m.suggestionLines()
	b.WriteString(m.transcript(max(m.transcriptHeight()-len(menu), 1)) + "\n")
	for _, l := range menu {
		b.WriteString(l + "\n")
	}
	b.WriteString(st.Dim.Render(m.stateLine()) + "\n")
	b.WriteString(m.input.View())
	return b.String()
}

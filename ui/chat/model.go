// Package chat is one open session of the Session tab: the transcript
// (ui/transcript), the message input with its /command and @file menu,
// the runtime's state, and the layers it stacks over itself as dialogs
// are stacked: approvals (ui/approval), every branch (ui/sessiontree), the
// context inspector (ui/inspector), the Review screen (ui/reviewview). The runtime works on its own
// goroutines; its events arrive through a queue as messages, and every
// action starts as a command.
//
// The chat routes to parts that keep their own state and take their own
// keys and messages (docs/adr/0090-interfaces-where-consumed.md): the
// composer (the input, its history, the /command and @file menu), the
// tuner (the model and thinking level the next prompt runs on), the
// reviewer (the agent's file changes) and the planner (plan mode and the
// question that runs a plan). What it asks of the core it defines where it
// asks it (services.go), and the Session tab passes the runtimes' parts.
//
// The files hold one part each: model.go the model, routing and layout;
// services.go the interfaces the chat asks of the core; open.go opening
// and starting sessions; chat.go keys, sending and the runtime's events;
// turn.go this program's turn; commands.go slash commands; composer.go the
// composer; input.go its input and keys; complete.go and
// completefolders.go its menu; tuner.go the tuner; models.go /model;
// thinking.go thinking levels; picatalogue.go pi's catalogue; tree.go
// /tree, /fork and the inspector's loading; remember.go /undo-memory;
// status.go the runtime's state and the state line; usage.go its token
// use; feed.go the event queue; dialogs.go extensions' questions
// (ui/extdialog); extensions.go what extensions show besides (notices,
// status, widgets, title) and the background launch; review.go the
// reviewer: the file changes' cards, /changes, /undo and /tree's "files
// too"; guard.go the questions put after a read, which wait for the
// keyboard to rest; plan.go the planner; planask.go its question, a bar
// under the transcript; export.go /export and importing; palette.go what
// the command palette asks of the chat.
package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/approval"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/extdialog"
	"github.com/pi-tui/pi-tui/ui/sessionlist"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// Deps are what the chat needs from the program.
type Deps struct {
	// Ctx lives as long as the program: when it ends (the terminal or SSH
	// client went away) a running turn is aborted and the program's
	// subscription to the core's events ends.
	Ctx context.Context
	// Host holds the services the chat uses besides those below (the
	// approval rules, memory, places, export and import).
	Host *host.Host
	// Events is the broker the runtimes publish on (the host's).
	Events *events.Broker
	// What the chat asks of the runtimes and the sessions (services.go).
	Runtime   Runtime
	Sessions  Sessions
	Catalogue Catalogue
	Plans     Plans
	Store     Store
	Worktrees Worktrees
	// Review is the review service (review.go); nil: none.
	Review   Review
	UI       *common.UI
	Markdown func(text string, width int) (string, error)
	Env      func(string) string
	// Prewarm launches a session's runtime in the background as its view
	// opens; nil: the runtime's own Prewarm.
	Prewarm func(ctx context.Context, sessionID string) error
}

// Tab is what the chat needs of the Session tab around it.
type Tab struct {
	// List is the project's session list beside the chat: the header
	// calls the session as its row does, /name renames through it, and
	// what the chat changes (a session's count, title or worktree) has it
	// read again.
	List *sessionlist.Model
	// Show moves the tab's focus to the chat (a session opened) or back
	// to the list (the chat left its session).
	Show func(chat bool)
}

// Keys of the chat.
type Keys struct {
	Send, Newline, Abort, HistPrev, HistNext, ScrollUp, ScrollDown, Tools, Thinking, Sessions key.Binding
	Level                                                                                     key.Binding // cycles the thinking level
	ToolPrev, ToolNext                                                                        key.Binding // select the call ctrl+o acts on
	Expand                                                                                    key.Binding // opens a paste marker to edit its text
}

func defaultKeys() Keys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return Keys{
		Send:       b("enter", "send", "enter"),
		Newline:    b("alt+enter/ctrl+j", "new line", "alt+enter", "ctrl+j"),
		Expand:     b("ctrl+x", "expand the paste marker at the cursor, to edit the text", "ctrl+x"),
		Abort:      b("esc", "abort the turn", "esc"),
		HistPrev:   b("↑", "earlier message", "up"),
		HistNext:   b("↓", "later message", "down"),
		ScrollUp:   b("pgup", "scroll up", "pgup", "shift+up"),
		ScrollDown: b("pgdn", "scroll down", "pgdown", "shift+down"),
		Tools:      b("ctrl+o", "expand/collapse a tool call: its output, and the diff of the files it changed", "ctrl+o"),
		ToolPrev:   b("alt+↑", "select an earlier tool call", "alt+up"),
		ToolNext:   b("alt+↓", "select a later tool call", "alt+down"),
		Thinking:   b("ctrl+t", "show thinking", "ctrl+t"),
		Level:      b("shift+tab", "thinking level", "shift+tab"),
		Sessions:   b("ctrl+l", "sessions", "ctrl+l"),
	}
}

// scope is what the chat shares with its parts (the composer, the
// review, the plan): the program's context and styles, the project, the
// open session and the chat's size. The chat sets it; its parts read it.
type scope struct {
	ctx     context.Context // the program's (Deps.Ctx)
	ui      *common.UI
	project *registry.Project
	sid     string // the open session ("" before one opens)
	// width and height are the area the chat draws in.
	width, height int
}

// Model is the chat. Its parts keep their own state and take their own
// messages and keys, and the chat routes to them: the composer (the input
// with its menu, composer.go), the tuner (the model and thinking level,
// tuner.go), the reviewer (the file changes, review.go) and the planner
// (plan mode, plan.go).
type Model struct {
	*scope
	d    Deps
	tab  Tab
	keys Keys
	br   *feed
	// stopWatch stops waiting for other writers' arrivals in the open
	// session; open is that session, for rereading it.
	stopWatch func()
	open      *sessions.Session
	// reads numbers the rereads of the open session asked for (rereadOf):
	// one that arrives after a later one is not shown. It is never reset:
	// one asked for before the session was left and opened again is not
	// shown either.
	reads int

	title string
	tr    *transcript.Model
	in    *composer // the input, its history and its menu (composer.go)
	queue []string
	turn  turn // what this program runs on the session (turn.go)
	// lastCall is closed when this program's latest call on a runtime
	// (a prompt, a compaction) has returned (turn.go).
	lastCall chan struct{}
	tune     *tuner               // the model and thinking level the next prompt runs on (tuner.go)
	plan     *planner             // plan mode and the question that runs a plan (plan.go)
	branch   string               // the open session's worktree branch, "" when it works in the project
	invalid  string               // why the open session's worktree binding is invalid (it works in nothing)
	failed   string               // the current prompt's error, once shown
	rt       runState             // the runtime, as its events say (status.go)
	asks     *approval.Questions  // open approval dialogs
	dialogs  *extdialog.Questions // open extension dialogs (dialogs.go)
	ext      extState             // what the session's extensions show (extensions.go)
	review   *reviewer            // the agent's file changes (review.go)
}

// New returns the chat; Init starts listening to the runtime.
func New(d Deps, tab Tab) *Model {
	m := &Model{scope: &scope{ctx: d.Ctx, ui: d.UI}, d: d, tab: tab, keys: defaultKeys(), rt: runState{state: runtimes.StateNone},
		tr: transcript.New(d.UI, d.Markdown)}
	m.in = newComposer(m.scope, &m.keys, d.Runtime, d.Catalogue, d.Env)
	var agentDir string
	if d.Host != nil {
		agentDir = d.Host.Places.AgentDir
	}
	m.tune = &tuner{scope: m.scope, rts: d.Runtime, pi: d.Catalogue, ss: d.Sessions, agentDir: agentDir, env: d.Env,
		running: func() string { return m.rt.model }}
	m.plan = &planner{scope: m.scope, plans: d.Plans, tr: m.tr, trHeight: m.transcriptHeight}
	m.review = &reviewer{scope: m.scope, svc: d.Review, ss: d.Sessions, tr: m.tr, busy: m.agentBusy, branch: m.branchSaying}
	m.br = newFeed(m.ctx, d.Events)
	var rules *approvals.Store
	if d.Host != nil {
		rules = d.Host.Approvals
	}
	m.asks = approval.NewQuestions(m.ctx, d.UI, m.br.sub, rules)
	m.dialogs = extdialog.NewQuestions(d.UI, m.br.sub)
	k := m.keys
	m.tr.SetCardHints(transcript.CardHints{Diff: k.Tools.Help().Key, Select: k.ToolPrev.Help().Key, Review: "/changes"})
	return m
}

// Close releases the chat when its program ends: the questions only it
// showed are denied (the program's context, ending, aborts a running
// turn and ends its subscription).
func (m *Model) Close() {
	m.asks.CloseAll()
	m.dialogs.CloseAll()
}

// Init starts delivering runtime events.
func (m *Model) Init() tea.Cmd { return m.br.wait() }

// SetSize sets the area the chat draws in.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.tr.SetWidth(w)
	m.in.fit()
}

// SetProject leaves the open session for project p, whose sessions the
// chat opens from then on; it refuses while the agent is working.
func (m *Model) SetProject(p registry.Project) error {
	if m.inTurn() {
		return fmt.Errorf("the agent is working in %s; press esc in the Session tab to abort it first", m.project.Name)
	}
	m.close()
	m.project = &p
	m.setIntro("", "")
	return nil
}

// setIntro says, while the session is empty, where the agent works: the
// project folder, or the worktree (branch, folder root) a session of its
// own works in, which its file tools stay inside instead.
func (m *Model) setIntro(branch, root string) {
	where := common.VisibleLine(m.project.Name) + ": its file tools stay inside the project folder"
	if branch != "" {
		where = fmt.Sprintf("%s, on branch %s in its own worktree (%s): its file tools stay inside that worktree, not the project folder",
			common.VisibleLine(m.project.Name), common.VisibleLine(branch), common.VisibleLine(paths.Tilde(root, m.d.UI.Home)))
	}
	m.tr.SetEmpty("Type a message and press enter. The agent works in " + where + "; its commands run as you, and in the ask and auto-edits modes only once you approve them.")
}

// Busy reports whether the agent is working, so quitting asks first.
func (m *Model) Busy() bool { return m.inTurn() }

// Help lists the chat's keys: only those that work while typing.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	e := m.in.input.KeyMap()
	return [][]key.Binding{{k.Send, k.Newline, k.Expand, k.Abort, menuKeys.Commands, menuKeys.At}, {menuKeys.Pick, menuKeys.Up, menuKeys.Close}, {k.HistPrev, k.HistNext, k.ScrollUp, k.ScrollDown},
		{k.Tools, k.ToolPrev, k.ToolNext, k.Thinking, k.Level, k.Sessions}, {e.Home, e.WordLeft, e.DeleteWord, e.KillLine, e.KillStart, e.Undo, e.Redo}}
}

func (m *Model) close() {
	// Leaving a session closes its questions here; the core denies them
	// when no other program shows the session: keys typed while looking
	// at another session must never answer it, and its agent must not
	// wait forever.
	m.asks.CloseAll()
	m.dialogs.CloseAll()
	m.plan.left()
	m.ext = extState{}
	m.br.show("")
	if m.stopWatch != nil {
		m.stopWatch()
		m.stopWatch = nil
	}
	m.tr.Clear()
	m.sid, m.queue = "", nil
	m.turn = turnNone
	m.tune.left()
	m.rt = runState{state: runtimes.StateNone}
}

// Update handles the chat's messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.in.update(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateCommands(msg); ok {
		return cmd
	}
	if cmd, ok := m.review.update(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateExport(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateRemember(msg); ok {
		return cmd
	}
	if cmd, ok := m.tr.Update(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case eventsMsg:
		var cmds []tea.Cmd
		for _, e := range msg {
			cmds = append(cmds, m.event(e))
		}
		return tea.Batch(append(cmds, m.br.wait())...)
	case openedMsg:
		if msg.err != nil {
			return m.failureNotice(msg.err)
		}
		m.close()
		m.sid, m.title, m.open = msg.id, msg.title, msg.sess
		m.branch, m.invalid = msg.branch, msg.invalid
		if m.project != nil {
			m.setIntro(msg.branch, msg.root)
		}
		var wctx context.Context
		// The watch ends with the program (m.ctx) if not before.
		wctx, m.stopWatch = context.WithCancel(m.ctx)
		m.tr.Load(msg.entries)
		m.tune.load(msg.entries)
		m.br.show(m.sid) // its events and questions, an open one included
		// What was stored between the read and show came with events
		// that went to the others only.
		caught := m.catchUp(msg.sess, msg.leaf)
		m.plan.load()
		st := m.d.Runtime.State(m.sid)
		m.rt.state = st.Runtime
		if l, ok := st.Last.(events.RuntimeLaunched); ok {
			m.rt.launched(l) // launched by another program, or before
		}
		m.rt.engineOf(st) // a live runtime says its engine, reused since or not
		var say tea.Cmd
		if msg.input != "" {
			m.in.set(msg.input)
		}
		if msg.notice != "" {
			say = common.Notice("%s", msg.notice)
		}
		if msg.invalid != "" {
			say = m.failureNotice(errors.New(msg.invalid))
		}
		m.tab.Show(true)
		return tea.Batch(caught, m.in.loadCommands(), m.tune.describe(), m.watchArrivals(wctx, m.sid, msg.sess), say, m.tab.List.Reload(), m.prewarm(m.sid), m.review.load(), m.loadUsage())
	case prewarmedMsg:
		m.prewarmFailed(msg)
		return nil
	case arrivedMsg:
		if msg.id != m.sid {
			return nil
		}
		reread := m.rereadOf(msg.sess)
		if m.inTurn() || m.rt.state != runtimes.StateIdle {
			return reread
		}
		// An idle runtime is checked now: a pi that another program wrote
		// past is relaunched in the background, not at the next prompt.
		return tea.Batch(reread, m.prewarm(msg.id))
	case refreshedMsg:
		if msg.id != m.sid || m.stopWatch == nil || msg.read != m.reads {
			return nil // left, or a later reread was asked for (rereadOf)
		}
		m.open = msg.sess
		if !m.inTurn() && !m.tr.Running() {
			// Mid-turn the live items show our own turn; the reread
			// transcript replaces them once the turn is over. Another
			// program's turn shows what it stored (its prompt) with the
			// text streaming after it; its end rereads the whole.
			m.tr.Reread(msg.entries)
			m.tune.load(msg.entries)
		}
		wctx, cancel := context.WithCancel(m.ctx)
		m.stopWatch()
		m.stopWatch = cancel
		return tea.Batch(m.watchArrivals(wctx, m.sid, msg.sess), m.tab.List.Reload())
	case describedMsg:
		m.tune.described(msg)
		return nil
	case usageMsg:
		if msg.sid == m.sid {
			m.rt.usage = msg.u
		}
		return nil
	case projectMsg:
		return m.projectRead(msg)
	case unsentMsg:
		if msg.id == m.sid {
			m.in.restore(msg.text)
			m.tr.DropUnsent(msg.text)
		}
		return nil
	case sessionlist.RenamedMsg:
		if msg.ID == m.sid {
			m.title = msg.Title // the list says so, and reloads
		}
		return nil
	case treeMsg:
		if m.sid != "" {
			return m.showTree(msg)
		}
		return nil
	case modelsMsg:
		if m.sid != "" {
			return m.tune.showModels(msg.refs, msg.current, msg.err)
		}
		return nil
	case branchedMsg:
		watch := m.handleBranched(msg)
		say := "branched: the old branch is kept; your next message continues from this entry"
		if msg.edit {
			say = "branched: the old branch is kept; edit the message and press enter"
		}
		if msg.said != "" {
			// What was done to the files first stays in the transcript:
			// the status bar has room for the branch's sentence.
			m.tr.Notice(msg.said, true)
		}
		return tea.Batch(watch, common.Notice("%s", say))
	case tea.KeyMsg:
		return m.chatKey(msg)
	}
	return nil
}

// firstMessage returns the open session's first message as the list has
// it, else the first one in its transcript.
func (m *Model) firstMessage() string {
	if s, ok := m.tab.List.Listed(m.sid); ok && s.FirstMessage != "" {
		return s.FirstMessage
	}
	return m.tr.FirstUser()
}

// View draws the chat.
func (m *Model) View() string {
	st := m.d.UI
	var b strings.Builder
	// Called as the list calls it (its name, else the first line of its
	// first message), clipped to the line.
	title := sessionlist.Title(m.title, m.firstMessage())
	switch {
	case title == "" && m.tr.Empty():
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
	line := st.Title.Render(head) + st.Dim.Render("  "+ansi.Truncate(title, max(m.width-30, 10), "…"))
	if t := common.VisibleLine(m.ext.title); t != "" {
		// An extension's setTitle, after the session's own name.
		line = ansi.Truncate(line+"  "+t, max(m.width, 10), "…")
	}
	b.WriteString(line + "\n")
	menu := m.in.menuLines(m.menuLimit())
	ext := m.ext.lines(m.d.UI, max(m.width, 10))
	// Under the transcript, not over it: the plan stays readable.
	ask := m.plan.lines(m.width)
	b.WriteString(m.tr.View(max(m.transcriptHeight()-len(menu)-len(ext)-len(ask), 1)) + "\n")
	for _, l := range ask {
		b.WriteString(l + "\n")
	}
	for _, l := range menu {
		b.WriteString(l + "\n")
	}
	for _, l := range ext {
		b.WriteString(l + "\n")
	}
	b.WriteString(st.Dim.Render(m.stateLine()) + "\n")
	b.WriteString(m.in.input.View())
	return b.String()
}

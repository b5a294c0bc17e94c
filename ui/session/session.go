// Package session is the Session tab: a project's sessions (newest first,
// new or resume) and the chat with the agent: a transcript with markdown,
// streamed answers, tool calls with their preflight markers and the
// instructions their results carried, approvals, and the runtime's state.
// The runtime works on its own goroutines; its events arrive through a
// queue as messages, and every action starts as a command.
package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtime"
	coresession "github.com/pi-tui/pi-tui/core/session"
	coresettings "github.com/pi-tui/pi-tui/core/settings"
	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
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
		Tools:      b("ctrl+o", "tool details", "ctrl+o"),
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
	lastCall provider.Usage // the last model call, for the context meter
	runtime  string         // none, idle, working, retired
	lastRT   string         // last launch/reuse/retire with its reason
	usage    provider.Usage
	window   int
	tools    bool
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
func (m *Model) Init() tea.Cmd { return m.br.wait() }

// SetSize sets the area the tab draws in.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.input.SetSize(w, m.inputHeight())
}

func (m *Model) inputHeight() int { return min(max(m.input.Lines(), 2), 6) }

// CapturesText reports whether keys go to the input.
func (m *Model) CapturesText() bool { return m.sid != "" }

// RuntimeModel is the model the session's runtime runs ("" before one
// launched), for the status bar.
func (m *Model) RuntimeModel() string {
	if m.sid == "" {
		return ""
	}
	return m.running
}

// RuntimeState is the runtime's state for the status bar.
func (m *Model) RuntimeState() string {
	if m.sid == "" {
		return "none"
	}
	return m.runtime
}

// Busy reports whether the agent is working, so quitting asks first.
func (m *Model) Busy() bool { return m.working }

// Help lists the keys of the current mode.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	if m.sid == "" {
		return [][]key.Binding{{k.Open, k.New, k.Up, k.Down}}
	}
	cmds := key.NewBinding(key.WithKeys("/"), key.WithHelp("/compact /tree", "/new /model /thinking /context, /skill:name, /template"))
	return [][]key.Binding{{k.Send, k.Newline, k.Abort, cmds, completeKey}, {k.HistPrev, k.HistNext, k.ScrollUp, k.ScrollDown}, {k.Tools, k.Thinking, k.Level, k.Sessions}}
}

type listMsg struct {
	list []coresession.Summary
	err  error
}

type openedMsg struct {
	id      string
	title   string
	entries []coresession.Entry
	sess    *coresession.Session // watched for other writers' arrivals
	err     error
}

// arrivedMsg says entries another writer (pi, another pi-tui) appended to
// the open session were read; refreshedMsg carries the branch reread.
type arrivedMsg struct {
	id   string
	sess *coresession.Session
}

type refreshedMsg struct {
	id      string
	entries []coresession.Entry
	sess    *coresession.Session
}

// arrivalPoll is how often an idle open session looks for lines other
// writers appended (a stat, and a read only when the file grew).
const arrivalPoll = time.Second

// watchArrivals waits, off the update loop, until the session reports
// arrivals (from an append of ours, or from polling the file) or ctx ends.
func (m *Model) watchArrivals(ctx context.Context, id string, s *coresession.Session) tea.Cmd {
	if s == nil {
		return nil
	}
	return func() tea.Msg {
		changed := s.Changed()
		t := time.NewTicker(arrivalPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
				return arrivedMsg{id: id, sess: s}
			case <-t.C:
				if n, _ := s.Refresh(ctx); n > 0 {
					return arrivedMsg{id: id, sess: s}
				}
			}
		}
	}
}

type promptDoneMsg struct {
	id  string
	err error
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

func (m *Model) loadList() tea.Cmd {
	if m.project == nil {
		return nil
	}
	sm, pid := m.d.Runtimes.Sessions(), m.project.ID
	return func() tea.Msg {
		list, err := sm.List(context.Background(), pid)
		return listMsg{list, err}
	}
}

func (m *Model) openSession(id string) tea.Cmd {
	rts := m.d.Runtimes
	return func() tea.Msg {
		s, err := rts.Session(context.Background(), id)
		if err != nil {
			return openedMsg{err: err}
		}
		return openedMsg{id: id, title: s.Title(), entries: s.Path(), sess: s}
	}
}

func (m *Model) newSession() tea.Cmd {
	if m.project == nil {
		return nil
	}
	sm, pid := m.d.Runtimes.Sessions(), m.project.ID
	return func() tea.Msg {
		s, err := sm.Create(context.Background(), pid, "")
		if err != nil {
			return openedMsg{err: err}
		}
		return openedMsg{id: s.ID()}
	}
}

// Update handles the tab's messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.updateCommands(msg); ok {
		return cmd
	}
	if cmd, ok := m.updateRemember(msg); ok {
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
			m.notice(msg.err.Error()) // failed before the agent could say so
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

func (m *Model) notice(text string) {
	m.items = append(m.items, &item{kind: kindNotice, text: text, ready: true})
}

// event applies one runtime event of this session.
func (m *Model) event(ev tea.Msg) tea.Cmd {
	switch a := ev.(type) {
	case approvalMsg:
		return m.askApproval(a.ask)
	case approvalGoneMsg:
		if m.dropAsk(a.ask) {
			m.items = append(m.items, &item{kind: kindNotice, ready: true, mild: true, text: "the approval question was withdrawn: its turn ended"})
		}
		return nil
	}
	e, ok := ev.(agent.Event)
	if !ok || e.SessionID != m.sid || m.sid == "" {
		return nil
	}
	switch e.Type {
	case runtime.EventLaunched:
		m.runtime, m.lastRT, m.running = "idle", "runtime launched: "+reasonText(e.Reason), e.Model
		m.window = m.d.Runtimes.ContextWindow(m.sid)
	case runtime.EventReused:
		m.runtime, m.lastRT, m.running = "idle", "runtime reused", e.Model
	case runtime.EventRetired:
		m.runtime, m.lastRT = "retired", "runtime retired: "+reasonText(e.Reason)
	case agent.EventAgentStart:
		m.runtime = "working"
	case agent.EventMessageUpdate:
		if m.live == nil {
			m.live = &item{kind: kindAssistant, ready: true, streaming: true}
			m.items = append(m.items, m.live)
		}
		m.live.text += e.Delta
		m.live.thinking += e.Thinking
	case agent.EventMessageEnd:
		if e.Usage != nil && e.Usage.InputTokens > 0 {
			m.lastCall = *e.Usage
		}
		if m.live == nil && e.Text != "" {
			m.live = &item{kind: kindAssistant, ready: true, text: e.Text}
			m.items = append(m.items, m.live)
		}
		if m.live != nil {
			// What arrived stays, marked partial when the answer broke
			// off; the reason is said once, by agent_end.
			m.live.streaming = false
			m.live.partial = e.Error != ""
			m.live.cacheKey = ""
		}
		m.live = nil
	case agent.EventToolStart:
		it := &item{kind: kindTool, ready: true, callID: e.ToolCallID, tool: e.ToolName, args: string(e.Args), status: "running"}
		m.calls[e.ToolCallID] = it
		m.items = append(m.items, it)
	case agent.EventToolEnd:
		it := m.calls[e.ToolCallID]
		if it == nil {
			it = &item{kind: kindTool, ready: true, callID: e.ToolCallID, tool: e.ToolName}
			m.items = append(m.items, it)
		}
		delete(m.calls, e.ToolCallID)
		it.status, it.path, it.result, it.toolMs, it.pre, it.delivery = "ok", e.Path, e.Result, e.ToolMs, e.Preflight, e.Delivery
		it.change = e.MemoryChange
		if e.IsError {
			it.status = "error"
		}
		it.cacheKey = ""
	case agent.EventCompactionEnd:
		if e.Error != "" {
			m.notice("compaction failed: " + e.Error)
		} else {
			m.items = append(m.items, &item{kind: kindCompaction, ready: true, text: e.Summary})
		}
	case agent.EventAgentEnd:
		// The turn is over: nothing it asked may still be answered.
		for _, d := range append([]*approvalDialog(nil), m.asks...) {
			d.ask.withdraw()
			m.dropAsk(d.ask)
		}
		m.runtime = "idle"
		m.ended = true
		if e.Usage != nil {
			m.usage = *e.Usage
		}
		switch {
		case e.StopReason == provider.StopAborted:
			m.items = append(m.items, &item{kind: kindNotice, ready: true, text: "aborted; what arrived is kept", mild: true})
		case e.Error != "":
			m.notice(errorAdvice(e.Error))
		}
		return common.Notice("")
	}
	return nil
}

// errorAdvice adds what to do to a model error shown in the transcript.
func errorAdvice(msg string) string {
	switch {
	case strings.Contains(msg, "no model is configured"), strings.Contains(msg, "API key"):
		return msg + " (Settings › Default model, or the README's Models section)"
	case strings.Contains(msg, "cannot reach"):
		return msg + " (check the provider's baseUrl in models.json and that the server runs)"
	}
	return msg
}

func reasonText(r string) string {
	switch r {
	case runtime.ReasonInstructionsChanged:
		return "AGENTS.md changed"
	case runtime.ReasonMemoryChanged:
		return "memory changed"
	case runtime.ReasonModelChanged:
		return "model changed"
	case runtime.ReasonThinkingChanged:
		return "thinking level changed"
	case runtime.ReasonKeyChanged:
		return "API key changed"
	case runtime.ReasonIdleTimeout:
		return "idle timeout"
	case runtime.ReasonNew:
		return "new"
	}
	return r
}

func (m *Model) listKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.list)-1, 0))
	case key.Matches(msg, k.New):
		return m.newSession()
	case key.Matches(msg, k.Open):
		if m.cursor < len(m.list) {
			return m.openSession(m.list[m.cursor].ID)
		}
		return m.newSession()
	}
	return nil
}

func (m *Model) chatKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if cmd, ok := m.completionKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Abort):
		if m.working {
			m.d.Runtimes.Abort(m.sid)
			if len(m.queue) > 0 {
				// Queued messages are not sent after an abort; they come back
				// to the input, nothing lost.
				m.input.SetValue(strings.Join(append(m.queue, m.input.Value()), "\n\n"))
				m.queue = nil
				return common.Notice("aborting; the queued messages are back in the input")
			}
			return common.Notice("aborting…")
		}
		return nil
	case key.Matches(msg, k.Sessions):
		if m.working {
			return common.Failure(errors.New("the agent is working; press esc to abort it first"))
		}
		m.close()
		return m.loadList()
	case key.Matches(msg, k.Tools):
		m.tools = !m.tools
		return nil
	case key.Matches(msg, k.Thinking):
		m.thinking = !m.thinking
		return nil
	case key.Matches(msg, k.Level):
		return m.cycleThinking()
	case key.Matches(msg, k.ScrollUp):
		m.bottom += max(m.transcriptHeight()/2, 1)
		return nil
	case key.Matches(msg, k.ScrollDown):
		m.bottom = max(m.bottom-max(m.transcriptHeight()/2, 1), 0)
		return nil
	case key.Matches(msg, k.Newline):
		m.input.Insert("\n")
		m.input.SetSize(m.width, m.inputHeight())
		return nil
	case key.Matches(msg, k.Send) && !msg.Paste:
		text := strings.TrimSpace(m.input.Value())
		if text == "" {
			return nil
		}
		m.input.SetValue("")
		m.input.SetSize(m.width, m.inputHeight())
		m.history = append(m.history, text)
		m.histPos = len(m.history)
		if strings.HasPrefix(text, "/") {
			return m.command(text)
		}
		if m.working {
			// The agent is busy: the message waits its turn.
			m.queue = append(m.queue, text)
			return common.Notice("queued: sent when the agent is done")
		}
		return m.send(text)
	case key.Matches(msg, k.HistPrev) && (m.input.Len() == 0 || m.showingHistory()):
		// Like a shell: ↑ steps back through what was sent, as long as
		// the input still shows an earlier message unchanged.
		if m.histPos > 0 {
			m.histPos--
			m.input.SetValue(m.history[m.histPos])
		}
		return nil
	case m.histPos < len(m.history) && key.Matches(msg, k.HistNext) && m.input.Value() == m.history[m.histPos]:
		m.histPos++
		if m.histPos < len(m.history) {
			m.input.SetValue(m.history[m.histPos])
		} else {
			m.input.SetValue("")
		}
		return nil
	}
	before := m.input.Value()
	m.input.Update(msg)
	m.input.SetSize(m.width, m.inputHeight())
	return m.afterInput(before)
}

// showingHistory reports whether the input holds the history entry it
// was filled with, unedited.
func (m *Model) showingHistory() bool {
	return m.histPos < len(m.history) && m.input.Value() == m.history[m.histPos]
}

// send starts a prompt; its events stream back through the bridge.
func (m *Model) send(text string) tea.Cmd {
	m.items = append(m.items, &item{kind: kindUser, ready: true, text: text})
	m.working, m.bottom, m.ended = true, 0, false
	if m.title == "" {
		m.title = text
	}
	rts, id, model, ctx := m.d.Runtimes, m.sid, m.spec(), m.ctx
	return func() tea.Msg {
		_, err := rts.Prompt(ctx, id, model, text)
		return promptDoneMsg{id: id, err: err}
	}
}

// command runs a slash command typed in the input.
func (m *Model) command(text string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	if !isBuiltin(name) {
		return m.callCommand(text) // a skill or a prompt template
	}
	if m.working && name != "model" && name != "thinking" {
		return common.Failure(fmt.Errorf("/%s waits until the agent is done (esc aborts it)", name))
	}
	switch name {
	case "compact":
		m.working = true
		rts, id, model, ctx := m.d.Runtimes, m.sid, m.spec(), m.ctx
		return func() tea.Msg {
			_, err := rts.Compact(ctx, id, model, strings.TrimSpace(arg))
			return promptDoneMsg{id: id, err: err}
		}
	case "new":
		return m.newSession()
	case "tree":
		return m.treePicker()
	case "model":
		return m.modelPicker()
	case "thinking":
		return m.thinkingCommand(strings.TrimSpace(arg))
	case "context":
		return m.inspect()
	case "undo-memory":
		return m.undoMemory()
	}
	return common.Failure(fmt.Errorf("unknown command /%s: /compact, /tree, /new, /model, /thinking, /context", name))
}

// treePicker loads the session's path (a store read when no runtime
// holds it) in a command, then offers its user messages.
func (m *Model) treePicker() tea.Cmd {
	rts, id := m.d.Runtimes, m.sid
	return func() tea.Msg {
		s, err := rts.Session(context.Background(), id)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return treeMsg{path: s.Path()}
	}
}

type treeMsg struct{ path []coresession.Entry }

func (m *Model) showTree(path []coresession.Entry) tea.Cmd {
	var users []coresession.Entry
	for _, e := range path {
		if e.Type == coresession.TypeUser {
			users = append(users, e)
		}
	}
	if len(users) == 0 {
		return common.Notice("no messages to branch from yet")
	}
	if len(users) > 35 {
		users = users[len(users)-35:]
	}
	keysFor := "123456789abcdefghijklmnopqrstuvwxyz"
	var items []dialog.Item
	for i := range users {
		it := &item{kind: kindUser, entry: &users[i]}
		it.decode()
		label := common.VisibleLine(it.text)
		if r := []rune(label); len(r) > 50 {
			label = string(r[:49]) + "…"
		}
		k := string(keysFor[i])
		entry := users[i]
		items = append(items, dialog.Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, label)), Run: func() tea.Cmd {
			return m.branchTo(entry, it.text)
		}})
	}
	return m.d.UI.Push(dialog.NewMenu(m.d.UI, "Branch: continue from before which message?", items))
}

// branchTo moves the leaf to just before a user message and puts that
// message in the input to edit and send again; the old branch stays.
func (m *Model) branchTo(e coresession.Entry, text string) tea.Cmd {
	rts, id := m.d.Runtimes, m.sid
	m.input.SetValue(text)
	return func() tea.Msg {
		if err := rts.Branch(context.Background(), id, e.ParentID); err != nil {
			return openedMsg{err: err}
		}
		s, err := rts.Session(context.Background(), id)
		if err != nil {
			return openedMsg{err: err}
		}
		return branchedMsg{entries: s.Path()}
	}
}

type branchedMsg struct{ entries []coresession.Entry }

// modelPicker reads models.json in a command, then offers the models.
func (m *Model) modelPicker() tea.Cmd {
	agentDir, env := m.d.Host.Places.AgentDir, m.d.Env
	return func() tea.Msg {
		reg := provider.Load(agentDir, env)
		var refs []coresettings.ModelRef
		for _, l := range reg.Usable() {
			refs = append(refs, l.ModelRef)
		}
		return modelsMsg{refs: refs, err: reg.Err()}
	}
}

type modelsMsg struct {
	refs []coresettings.ModelRef
	err  error
}

func (m *Model) showModels(refs []coresettings.ModelRef, err error) tea.Cmd {
	if len(refs) == 0 {
		if err == nil {
			err = errors.New("no model is available: set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or add a provider to models.json")
		}
		return common.Failure(err)
	}
	keysFor := "123456789abcdefghijklmnopqrstuvwxyz"
	var items []dialog.Item
	for i, r := range refs {
		if i >= len(keysFor) {
			break
		}
		k, spec := string(keysFor[i]), r.String()
		items = append(items, dialog.Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, spec)), Run: func() tea.Cmd {
			m.model = spec
			rts, id := m.d.Runtimes, m.sid
			// Kept in the session, so resuming it later uses this model.
			return tea.Batch(common.Notice("model %s: the runtime restarts (model-changed) at the next prompt", spec), m.describe(), func() tea.Msg {
				if s, err := rts.Session(context.Background(), id); err == nil {
					s.Append(context.Background(), coresession.TypeModelChange, map[string]string{"model": spec})
				}
				return nil
			})
		}})
	}
	return m.d.UI.Push(dialog.NewMenu(m.d.UI, "Model for this session", items))
}

func (m *Model) inspect() tea.Cmd {
	rts, id, model := m.d.Runtimes, m.sid, m.spec()
	return func() tea.Msg {
		in, err := rts.Inspect(context.Background(), id, model)
		if err != nil {
			return common.NoticeMsg{Text: err.Error(), Error: true}
		}
		return common.PushMsg{Layer: newInspector(m.d.UI, in)}
	}
}

// askApproval shows the approval dialog for a tool call of the open
// session. A question from a session no longer on screen (it was asked as
// the user left it) is denied at once: what the user types now is about
// another session.
func (m *Model) askApproval(a *ask) tea.Cmd {
	if a.sid != m.sid || m.sid == "" {
		a.answerWith(false, nil)
		return common.Notice("denied a %s call of a session that is no longer open", a.req.Tool)
	}
	d := newApprovalDialog(m.d.UI, a, m.project.Name, m.answerAsk)
	m.asks = append(m.asks, d)
	return m.d.UI.Push(d)
}

// answerAsk closes an approval dialog with the user's answer.
func (m *Model) answerAsk(d *approvalDialog, allow, forSession bool) tea.Cmd {
	m.dropAsk(d.ask)
	var remember func()
	if forSession {
		// Remembered before the answer goes out, so the agent's next call
		// of the tool does not ask again.
		remember = func() { m.br.allowForSession(d.ask.sid, d.ask.req.Tool) }
	}
	if !d.ask.answerWith(allow, remember) {
		return common.Notice("that question was already withdrawn: its turn had ended")
	}
	return nil
}

// dropAsk closes the dialog of a and reports whether one was open.
func (m *Model) dropAsk(a *ask) bool {
	for i, d := range m.asks {
		if d.ask == a {
			m.asks = append(m.asks[:i:i], m.asks[i+1:]...)
			m.d.UI.Close(d)
			return true
		}
	}
	return false
}

// denyAsks denies and closes every open approval.
func (m *Model) denyAsks() {
	for _, d := range append([]*approvalDialog(nil), m.asks...) {
		d.ask.answerWith(false, nil)
		m.dropAsk(d.ask)
	}
}

// HandleBranched applies a branch picked with /tree.
func (m *Model) handleBranched(msg branchedMsg) {
	m.items = itemsFrom(msg.entries)
	m.bottom = 0
}

func (m *Model) transcriptHeight() int { return max(m.height-m.inputHeight()-3, 3) }

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

func (m *Model) stateLine() string {
	parts := []string{"runtime " + m.runtime}
	if m.model != "" {
		parts = append(parts, "model "+common.VisibleLine(m.model)) // from the session file
	}
	if t := m.thinkingText(); t != "" {
		parts = append(parts, t)
	}
	if m.lastRT != "" {
		parts = append(parts, m.lastRT)
	}
	if t := m.usage.InputTokens + m.usage.OutputTokens; t > 0 {
		fill := ""
		if ctx := m.lastCall.InputTokens + m.lastCall.OutputTokens + m.lastCall.CacheReadTokens; m.window > 0 && ctx > 0 {
			fill = fmt.Sprintf(" · context %d%% of %dk", ctx*100/m.window, m.window/1000)
		}
		parts = append(parts, fmt.Sprintf("tokens %d in / %d out%s", m.usage.InputTokens, m.usage.OutputTokens, fill))
	}
	if len(m.queue) > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", len(m.queue)))
	}
	// State first: it is what a glance is for; key hints fill what is left.
	line := strings.Join(parts, " · ")
	hint := "enter send · alt+enter new line · shift+tab thinking · /compact /tree /new /model /thinking /context"
	// "working" follows the runtime's own state, which agent_end ends in
	// event order; m.working also covers the moment before it starts.
	if m.working && m.runtime != "idle" {
		line = "working… esc aborts · " + line
	} else if ansi.StringWidth(line)+3+ansi.StringWidth(hint) <= m.width {
		line += " · " + hint
	}
	return ansi.Truncate(line, m.width, "…")
}

// transcript draws the last h lines (or h lines ending m.bottom lines up).
// Items are drawn from the end backwards, only as many as fit: a long
// session costs what its visible part costs.
func (m *Model) transcript(h int) string {
	opts := viewOpts{tools: m.tools, thinking: m.thinking, markdown: m.d.Markdown}
	need := h + m.bottom
	var lines []string
	for i := len(m.items) - 1; i >= 0 && len(lines) < need; i-- {
		l := m.items[i].render(m.d.UI, m.width, opts)
		lines = append(append([]string(nil), l...), lines...)
	}
	if len(m.items) == 0 {
		lines = []string{m.d.UI.Dim.Render("Type a message and press enter. The agent works in " + common.VisibleLine(m.project.Name) + ": its file tools stay inside the project folder; its commands run as you, and in the ask and auto-edits modes only once you approve them.")}
	}
	end := max(len(lines)-m.bottom, 0)
	start := max(end-h, 0)
	m.bottom = len(lines) - end
	out := lines[start:end]
	for len(out) < h {
		out = append([]string{""}, out...)
	}
	return strings.Join(out, "\n")
}

func (m *Model) listView() string {
	st := m.d.UI
	var b strings.Builder
	b.WriteString(st.Title.Render("Sessions · "+common.VisibleLine(m.project.Name)) + st.Dim.Render("  enter open · n new · ? help") + "\n\n")
	if m.listErr != "" {
		b.WriteString(st.Error.Render(m.listErr))
		return b.String()
	}
	if len(m.list) == 0 {
		b.WriteString("No sessions yet. Press " + st.Key.Render("n") + " (or enter) to start one.")
		return b.String()
	}
	for i, s := range m.list {
		title := s.Title
		if title == "" {
			title = s.FirstMessage
		}
		if title == "" {
			title = "(untitled)"
		}
		line := fmt.Sprintf("%s  %s  %d entries", time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04"), common.VisibleLine(title), s.Entries)
		if s.Problem != "" {
			// A file pi-tui cannot use says why, in one line; the others work.
			line = fmt.Sprintf("%s  %s  ⚠ %s", time.UnixMilli(s.UpdatedAt).Local().Format("2006-01-02 15:04"),
				common.VisibleLine(filepath.Base(s.Path)), common.VisibleLine(s.Problem))
		}
		line = ansi.Truncate(line, max(m.width-4, 10), "…")
		if i == m.cursor {
			b.WriteString(st.Selected.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	return b.String()
}

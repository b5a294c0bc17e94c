// Package ui is pi-tui's terminal interface. Model is the root: it owns
// the tabs (Projects, Session, Settings), a stack of layers (pages such as
// the AGENTS.md editor, and dialogs floating over them), the status bar and
// help. Keys go to the top layer first, then by a typed focus state to the
// active tab; every side effect runs as a tea.Cmd.
package ui

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/editor"
	"github.com/pi-tui/pi-tui/ui/instructionsview"
	"github.com/pi-tui/pi-tui/ui/markdown"
	"github.com/pi-tui/pi-tui/ui/memoryeditor"
	"github.com/pi-tui/pi-tui/ui/projects"
	"github.com/pi-tui/pi-tui/ui/settings"
)

// Minimum terminal size; below it the shell says so instead of drawing.
const (
	MinWidth  = 60
	MinHeight = 16
)

// Options configure a shell. Host and Renderer are required.
type Options struct {
	// Host is the host core the program works with, its runtimes too;
	// several programs (SSH sessions) may share one.
	Host *host.Host
	// Context is the program's life (an SSH session's, the process's
	// signals): the program's work stops when it ends, or at Close. Nil
	// means until Close.
	Context context.Context
	// Renderer is this program's renderer: its colour profile and
	// background decide the styles (each SSH client has its own).
	Renderer *lipgloss.Renderer
	// Env looks up environment variables ($EDITOR, API keys); nil means
	// none are set.
	Env func(string) string
	// Exec runs an external program (the $EDITOR) in the terminal; nil
	// means tea.ExecProcess.
	Exec func(cmd *exec.Cmd, done func(error) tea.Msg) tea.Cmd
	// Start is where the program opens; the zero value is the Projects
	// tab.
	Start Start
	// Now is the clock; nil means time.Now. Tests pass a fake one to
	// drive the quiet period of approval dialogs without waiting.
	Now func() time.Time
	// Preload, if set, is the Projects tab's first list, already being
	// read (projects.StartPreload); nil reads it at Init.
	Preload *projects.Preload
}

// Start is where a program opens: `pi-tui [-c] [PATH]`.
type Start struct {
	// Project opens on this project's sessions (the Session tab).
	Project *registry.Project
	// Continue reopens the project's latest session, as `pi -c` does.
	Continue bool
	// AddPath offers to add this folder, which no project holds, in the
	// add dialog (trust is asked there).
	AddPath string
}

type tab int

const (
	tabProjects tab = iota
	tabSession
	tabSettings
	tabCount
)

func (t tab) String() string {
	return [...]string{"Projects", "Session", "Settings"}[t]
}

// focus is where keys go.
type focus int

const (
	focusProjects focus = iota
	focusProjectsFilter
	focusSession
	focusSessionText // the chat input has the keys
	focusSettings
	focusLayer
	focusLayerText
)

// Model is the root model.
type Model struct {
	opts Options
	st   *common.UI // styles, navigation and life shared by every screen
	// stop ends the program's context (st.Ctx), at Close.
	stop context.CancelFunc
	md   *markdown.Renderer
	keys common.GlobalKeys

	tab      tab
	projects *projects.Model
	settings *settings.Model
	session  *sessionTab
	stack    []common.Layer

	quitAsk *dialog.Confirm // the open quit confirmation, if any

	// later is what the first frame of the Projects tab does not show
	// (the Settings tab, the session tab's reconciling of every project's
	// session folder), started once that frame's list has arrived rather
	// than beside the load it would slow down.
	later []tea.Cmd

	showHelp  bool
	helpTop   int // the first key line the help screen shows
	notice    string
	noticeErr bool
	status    statusInfo

	width, height int
	bodyH         int // the height the tabs were last given (fitBody)
}

type statusInfo struct {
	// model is the model a prompt naming none runs, with where it comes
	// from ("no model (see Settings)" when none can run); modelName is
	// its PROVIDER/ID alone.
	model, modelName string
	modelShort       string // model without where it comes from
	thinking         string // the default thinking level, when settings name one
	warn             string
}

type statusMsg statusInfo

// New returns the root model. It is the constructor a teatest script
// uses too: give it a Host over a temp data dir and agent dir.
func New(opts Options) *Model {
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	st := common.NewUI(common.NewStyles(opts.Renderer))
	st.Home = opts.Host.Places.Home
	if opts.Now != nil {
		st.Now = opts.Now
	}
	life := opts.Context
	if life == nil {
		life = st.Ctx
	}
	var stop context.CancelFunc
	st.Ctx, stop = context.WithCancel(life)
	m := &Model{opts: opts, st: st, stop: stop, md: markdown.New(opts.Renderer), keys: st.Keys, width: 80, height: 24}
	m.projects = projects.New(opts.Host, st, projects.Actions{
		EditAgents:       m.editAgents,
		EditMemory:       m.editMemory,
		ShowInstructions: m.showInstructions,
		OpenSession:      m.openSession,
	})
	if opts.Preload != nil {
		m.projects.UsePreload(opts.Preload)
	}
	m.settings = settings.New(opts.Host, opts.Host.Runtimes, st, opts.Env, m.editGlobal)
	m.settings.OpenProviders = m.openProviders
	m.session = newSessionTab(opts, st, m.markdown)
	return m
}

// Close releases what the program holds in shared services (its runtime
// subscription and approvals) and ends the work it started; call it when
// the program has ended.
func (m *Model) Close() {
	m.session.Close()
	m.projects.Close()
	m.stop()
}

// Init loads the projects and the settings, and goes where the program
// was asked to start.
func (m *Model) Init() tea.Cmd {
	if m.opts.Start.Project != nil || m.opts.Start.AddPath != "" {
		return tea.Batch(m.projects.Init(), m.settings.Init(), m.session.Init(), m.loadStatus(), m.start())
	}
	m.later = []tea.Cmd{m.settings.Init(), m.session.Init()}
	return tea.Batch(m.projects.Init(), m.loadStatus())
}

// startLater starts the work Init put off once the Projects tab has its
// first list.
func (m *Model) startLater() tea.Cmd {
	if m.later == nil || !m.projects.Shown() {
		return nil
	}
	cmd := tea.Batch(m.later...)
	m.later = nil
	return cmd
}

// start opens the project or the add dialog that Options.Start names.
func (m *Model) start() tea.Cmd {
	s := m.opts.Start
	switch {
	case s.Project != nil:
		return m.openAt(*s.Project, s.Continue)
	case s.AddPath != "":
		// Once added, on to its sessions, as for a registered PATH.
		reg, ctx := m.opts.Host.Projects, m.st.Ctx
		l := m.projects.AddDialog(s.AddPath, func(id string) tea.Cmd {
			return func() tea.Msg {
				p, err := reg.Get(ctx, id)
				if err != nil {
					return common.NoticeMsg{Text: err.Error(), Error: true}
				}
				return openAtMsg{p: p}
			}
		})
		return func() tea.Msg { return common.PushMsg{Layer: l} }
	}
	return nil
}

// openAtMsg opens a project the program started on once it is known.
type openAtMsg struct{ p registry.Project }

// openAt opens project p's sessions (its latest session with cont) as
// the program's start: selected on Projects and marked opened.
func (m *Model) openAt(p registry.Project, cont bool) tea.Cmd {
	m.tab = tabSession
	selectIt := func() tea.Msg { return projects.SelectMsg{ID: p.ID} }
	if cont {
		return tea.Batch(selectIt, m.markOpened(p), m.session.Continue(p))
	}
	return tea.Batch(selectIt, m.markOpened(p), m.session.Open(p))
}

// markOpened records, off the UI goroutine, that the program opened on
// project p: starting in a project's folder opens it as `o` on its row
// does, for "opened …" and the recent sort.
func (m *Model) markOpened(p registry.Project) tea.Cmd {
	reg, ctx := m.opts.Host.Projects, m.st.Ctx
	return func() tea.Msg {
		if err := reg.MarkOpened(ctx, p.ID); err != nil {
			return common.NoticeMsg{Text: "cannot record that " + p.Name + " was opened: " + err.Error(), Error: true}
		}
		return nil
	}
}

func (m *Model) loadStatus() tea.Cmd {
	h, env, ctx := m.opts.Host, m.opts.Env, m.st.Ctx
	return func() tea.Msg {
		var s statusInfo
		var warns []string
		// The model as a prompt would resolve it (the runtimes' own
		// resolution), so the bar and the prompt cannot disagree.
		s.model, s.modelShort, s.modelName = statusModel(h.Runtimes.Model(ctx, ""))
		if _, err := h.DefaultModel(); err != nil {
			warns = append(warns, pisettings.Brief(err, h.Places.Home)+" (see Settings)")
		}
		if l, err := pisettings.ReadThinkingLevel(h.Places.AgentDir); err == nil {
			s.thinking = l
		}
		if _, gw := instructions.LoadGuidance(h.Places.AgentDir); len(gw) > 0 {
			warns = append(warns, "agent-guidance.json is invalid (see Settings)")
		}
		// models.json or auth.json that cannot be used, or an auth.json
		// others can read: the sentence names the file and the position.
		if reg := provider.Load(h.Places.AgentDir, env); reg.Err() != nil {
			// No model can be picked until the file is fixed, whatever
			// settings.json names as the default (the resolution says so).
			warns = append(warns, tilde(reg.Err().Error(), h.Places.Home))
		} else if w := reg.AuthWarning(); w != "" {
			warns = append(warns, tilde(w, h.Places.Home))
		}
		for _, e := range h.Projects.TrustProblems(ctx) {
			warns = append(warns, pisettings.Brief(e, h.Places.Home)+": no project trusted by it")
		}
		s.warn = strings.Join(warns, " · ")
		return statusMsg(s)
	}
}

// focus tells where a key goes now.
func (m *Model) focus() focus { return m.focusAt(len(m.stack)) }

// focusAt tells where a key would go if only the bottom n layers were
// open.
func (m *Model) focusAt(n int) focus {
	if n > 0 {
		if m.stack[n-1].CapturesText() {
			return focusLayerText
		}
		return focusLayer
	}
	switch m.tab {
	case tabSession:
		if m.session.CapturesText() {
			return focusSessionText
		}
		return focusSession
	case tabSettings:
		return focusSettings
	}
	if m.projects.Filtering() {
		return focusProjectsFilter
	}
	return focusProjects
}

// Update routes a message, then applies the layers the screens opened or
// closed while handling it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.route(msg)
	nav := m.applyNav()
	m.fitBody()
	// The Projects list reloads for changes made elsewhere only while it
	// is seen; hidden (another tab, a page over it), it catches up when it
	// shows again. Twenty SSH clients each saving memory would otherwise
	// reload every program's list at once, twenty times over.
	return m, tea.Batch(cmd, nav, m.projects.Seen(m.tab == tabProjects && len(m.stack) == 0), m.startLater())
}

// applyNav pushes and closes the layers recorded during the last message,
// starting each pushed layer.
func (m *Model) applyNav() tea.Cmd {
	var cmds []tea.Cmd
	for _, op := range m.st.Nav.Drain() {
		switch {
		case op.Push != nil:
			cmds = append(cmds, m.push(op.Push))
		case op.Close != nil:
			m.remove(op.Close)
		}
	}
	return tea.Batch(cmds...)
}

func (m *Model) push(l common.Layer) tea.Cmd {
	// A layer opened by a background event (an approval) must be seen:
	// the help screen would hide it.
	m.showHelp = false
	m.stack = append(m.stack, l)
	if in, ok := l.(interface{ Init() tea.Cmd }); ok {
		return in.Init()
	}
	return nil
}

func (m *Model) remove(l common.Layer) {
	for i, x := range m.stack {
		if x == l {
			m.stack = append(m.stack[:i], m.stack[i+1:]...)
			break
		}
	}
	if m.quitAsk != nil && l == common.Layer(m.quitAsk) {
		m.quitAsk = nil
	}
}

func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.projects.SetSize(msg.Width, m.bodyHeight())
		m.settings.SetSize(msg.Width, m.bodyHeight())
		m.session.SetSize(msg.Width, m.bodyHeight())
		return nil
	case common.PushMsg:
		// A layer opened by a command (after some I/O).
		return m.push(msg.Layer)
	case common.CloseMsg:
		m.remove(msg.Layer)
		return nil
	case common.NoticeMsg:
		m.notice, m.noticeErr = msg.Text, msg.Error
		return m.loadStatus()
	case common.WithdrawMsg:
		if slices.Contains(msg.Texts, m.notice) {
			m.notice, m.noticeErr = "", false
		}
		return m.loadStatus() // the turn that ended may have settled the model
	case statusMsg:
		m.status = statusInfo(msg)
		return nil
	case openAtMsg:
		return m.openAt(msg.p, false)
	case tea.KeyMsg:
		before := m.tab
		cmd := m.key(msg)
		if m.tab == tabSettings && before != tabSettings {
			// What Settings shows can change anywhere (an approval rule
			// made with A in a chat, a file edited outside): it is read
			// again each time the tab is shown.
			cmd = tea.Batch(cmd, m.settings.Init())
		}
		return cmd
	}
	return m.broadcast(msg)
}

// broadcast hands a non-key message to every layer and tab; each ignores
// what is not its own.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for i, l := range m.stack {
		var cmd tea.Cmd
		m.stack[i], cmd = l.Update(msg)
		cmds = append(cmds, cmd)
	}
	cmds = append(cmds, m.projects.Update(msg), m.settings.Update(msg), m.session.Update(msg))
	return tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Alt && (msg.Type == tea.KeyEsc || ctrlLetter(msg.Type)) {
		// esc and the next key in one read (a quick double esc, esc then
		// ctrl+s over a slow link, tmux send-keys 1b 13) arrive as that
		// key with alt, which nothing binds: they are two presses,
		// handled in turn like split runes.
		next := tea.KeyMsg{Type: msg.Type}
		return tea.Batch(m.key(tea.KeyMsg{Type: tea.KeyEsc}), m.applyNav(), m.key(next), m.applyNav())
	}
	if keys := common.SplitRunes(msg); len(keys) > 1 {
		if f := m.focus(); f == focusLayerText || f == focusProjectsFilter || f == focusSessionText {
			// Several characters in one read (a slow link, a terminal
			// without bracketed paste) go into the text field whole, as a
			// paste: no binding matches it, so the word "esc" typed fast
			// cannot close an editor.
			msg.Paste = true
		} else {
			// Where letters are commands ("jj" moves down twice), each is
			// handled in turn, and a key can change where the next goes.
			cmds := make([]tea.Cmd, 0, len(keys))
			for _, k := range keys {
				cmds = append(cmds, m.key(k), m.applyNav())
			}
			return tea.Batch(cmds...)
		}
	}
	// Every key counts for the quiet period of guarded dialogs, whoever
	// gets it; it is recorded after routing so the key itself is judged
	// by the rest before it.
	defer m.st.KeySeen()
	if key.Matches(msg, m.keys.ForceQuit) {
		return m.quit()
	}
	if m.width < MinWidth || m.height < MinHeight {
		return nil // nothing on screen says what a key would do
	}
	if m.showHelp {
		m.helpKey(msg)
		return nil
	}
	m.notice, m.noticeErr = "", false
	if cmd, done := m.guardedKey(msg); done {
		return cmd
	}
	f := m.focus()
	// Help: f1 everywhere; ? too where it is not a character being typed.
	typing := f == focusLayerText || f == focusProjectsFilter || f == focusSessionText
	if key.Matches(msg, m.keys.HelpTyping) || (!typing && key.Matches(msg, m.keys.Help)) {
		m.showHelp, m.helpTop = true, 0
		return nil
	}
	if cmd, ok := m.paletteKey(msg, f); ok {
		return cmd
	}
	switch f {
	case focusLayerText, focusLayer:
		top := len(m.stack) - 1
		var cmd tea.Cmd
		m.stack[top], cmd = m.stack[top].Update(msg)
		return cmd
	case focusProjectsFilter:
		return m.projects.Update(msg)
	case focusSessionText:
		// tab completes a /command being typed; elsewhere it switches tabs.
		// The chat keeps shift+tab for the thinking level (as pi does).
		if !m.session.Completing() && !m.session.ClaimsKey(msg) && m.tabKey(msg) {
			return nil
		}
		return m.session.Update(msg)
	}
	if m.tabKey(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m.quit()
	case key.Matches(msg, m.keys.Projects):
		m.tab = tabProjects
		return nil
	case key.Matches(msg, m.keys.Session):
		m.tab = tabSession
		return nil
	case key.Matches(msg, m.keys.Settings):
		m.tab = tabSettings
		return nil
	}
	switch f {
	case focusProjects:
		return m.projects.Update(msg)
	case focusSession:
		return m.session.Update(msg)
	case focusSettings:
		// Settings may have fixed a file the status bar warns about.
		return tea.Batch(m.settings.Update(msg), m.loadStatus())
	}
	return nil
}

// guardedKey routes a key while the top layer is a guarded dialog in its
// quiet period: typed text goes on to the text field beneath, where the
// user was typing, and everything else to the dialog, which ignores it
// and says so. Nothing typed is lost and nothing typed answers.
func (m *Model) guardedKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	n := len(m.stack)
	if n == 0 {
		return nil, false
	}
	g, ok := m.stack[n-1].(common.Guarded)
	if !ok || !g.Holding() {
		return nil, false
	}
	if isText(msg) {
		switch m.focusAt(n - 1) {
		case focusLayerText:
			var cmd tea.Cmd
			m.stack[n-2], cmd = m.stack[n-2].Update(msg)
			return cmd, true
		case focusProjectsFilter:
			return m.projects.Update(msg), true
		case focusSessionText:
			return m.session.Update(msg), true
		}
	}
	var cmd tea.Cmd
	m.stack[n-1], cmd = m.stack[n-1].Update(msg)
	return cmd, true
}

// ctrlLetter reports whether t is ctrl and a letter other than the ones
// terminals send for tab, enter and backspace (ctrl+i, ctrl+m, ctrl+h):
// alt with such a key is bound nowhere, so it can only be esc, then it.
func ctrlLetter(t tea.KeyType) bool {
	return t >= tea.KeyCtrlA && t <= tea.KeyCtrlZ && t != tea.KeyCtrlI && t != tea.KeyCtrlM && t != tea.KeyCtrlH
}

// isText reports whether a key edits text (characters, space,
// backspace) rather than commands something.
func isText(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyRunes:
		return !msg.Alt
	case tea.KeySpace, tea.KeyBackspace:
		return true
	}
	return false
}

// tabKey switches tabs on tab / shift+tab and reports whether it did.
func (m *Model) tabKey(msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, m.keys.NextTab):
		m.tab = (m.tab + 1) % tabCount
	case key.Matches(msg, m.keys.PrevTab):
		m.tab = (m.tab + tabCount - 1) % tabCount
	default:
		return false
	}
	return true
}

// quit leaves at once unless an editor holds unsaved text or the agent
// is working; then it asks, saying what quitting loses: each editor's
// unsaved changes (only those: what is saved stays), and what happens to
// the running turn.
func (m *Model) quit() tea.Cmd {
	var lost []string
	for _, l := range m.stack {
		if u := l.Unsaved(); u != "" {
			lost = append(lost, u+" would be lost.")
		}
	}
	if m.session.Busy() {
		lost = append(lost, "The agent's running turn would be stopped; what it has written and done so far stays in the session.")
	}
	if len(lost) == 0 {
		return tea.Quit
	}
	if m.quitAsk != nil {
		return tea.Quit // ctrl+c while already asking
	}
	m.quitAsk = dialog.NewConfirm(m.st, "Quit pi-tui?",
		strings.Join(lost, "\n")+"\n\ny quits anyway; n or esc goes back (ctrl+c again also quits).",
		func() tea.Cmd { return tea.Quit })
	return m.st.Push(m.quitAsk)
}

// bodyHeight is what the header (one line) and the status bar (one
// line, more while a long notice shows) leave.
func (m *Model) bodyHeight() int {
	return max(m.height-2-strings.Count(m.statusBar(), "\n"), 1)
}

// Layer-opening actions handed to the Projects and Settings tabs.

func (m *Model) editorConfig(dir, name, label string, project bool) editor.Config {
	cfg := editor.Config{Dir: dir, Name: name, Label: label, Project: project, Exec: m.opts.Exec,
		Editor: firstNonEmpty(m.opts.Env("VISUAL"), m.opts.Env("EDITOR")), Markdown: m.markdown}
	cfg.Open = func(other string) tea.Cmd {
		return m.st.Push(editor.NewPage(m.editorConfig(dir, other, tildeJoin(filepath.Dir(label), other), project), m.st))
	}
	return cfg
}

func tildeJoin(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// editAgents edits the AGENTS.md of dir, p's root or another of its
// folders (each folder has its own, ADR 0085).
func (m *Model) editAgents(_ registry.Project, dir string) tea.Cmd {
	label := paths.Tilde(filepath.Join(dir, "AGENTS.md"), m.opts.Host.Places.Home)
	return m.st.Push(editor.NewPage(m.editorConfig(dir, "AGENTS.md", label, true), m.st))
}

func (m *Model) editGlobal() tea.Cmd {
	dir := m.opts.Host.Places.AgentDir
	label := paths.Tilde(filepath.Join(dir, "AGENTS.md"), m.opts.Host.Places.Home)
	return func() tea.Msg {
		// The agent dir may not exist yet: create it so the file can be.
		if err := mkdirAll(dir); err != nil {
			return common.NoticeMsg{Text: fmt.Sprintf("cannot create %s: %v", dir, err), Error: true}
		}
		return common.PushMsg{Layer: editor.NewPage(m.editorConfig(dir, "AGENTS.md", label, false), m.st)}
	}
}

func (m *Model) editMemory(p registry.Project) tea.Cmd {
	return m.st.Push(memoryeditor.New(m.opts.Host, m.st, p.Root, p.Name))
}

func (m *Model) showInstructions(p registry.Project) tea.Cmd {
	return m.st.Push(instructionsview.New(m.opts.Host, m.opts.Host.Runtimes, m.st, p))
}

func (m *Model) openSession(p registry.Project) tea.Cmd {
	m.tab = tabSession
	return m.session.Open(p)
}

// markdown renders text for previews and the transcript.
func (m *Model) markdown(text string, width int) (string, error) {
	return m.md.Render(text, width)
}

// View draws the screen.
func (m *Model) View() string {
	if m.width < MinWidth || m.height < MinHeight {
		msg := fmt.Sprintf("The terminal is too small for pi-tui: it needs at least %d×%d, and this one is %d×%d. Enlarge the window; keys wait until then (ctrl+c quits).",
			MinWidth, MinHeight, m.width, m.height)
		return ansi.Wrap(msg, max(m.width, 10), "")
	}
	bodyH := m.bodyHeight()
	var body string
	switch {
	case m.showHelp:
		body = m.helpPage()
	default:
		body = m.bodyView(len(m.stack), bodyH)
	}
	body = fit(body, m.width, bodyH)
	return m.header() + "\n" + body + "\n" + m.statusBar()
}

// bodyView draws the tab or the layers up to (not including) index n:
// the top full-screen layer below n, with the dialogs above it floated on
// top.
func (m *Model) bodyView(n, h int) string {
	if n == 0 {
		switch m.tab {
		case tabSettings:
			return m.settings.View()
		case tabSession:
			return m.session.View()
		}
		return m.projects.View()
	}
	top := m.stack[n-1]
	if top.FullScreen() {
		return top.View(m.width, h)
	}
	below := fit(m.bodyView(n-1, h), m.width, h)
	box := top.View(m.width, h)
	if n > 1 && !m.stack[n-2].FullScreen() {
		// Over another dialog: a clear cell around the box, so that no
		// edge of the one beneath (often a cell wider or taller) shows
		// beside its border as a second one.
		box = margin(box, m.width, h)
	}
	return overlay(below, box, m.width, h)
}

func (m *Model) header() string {
	var tabs []string
	for t := tab(0); t < tabCount; t++ {
		label := fmt.Sprintf("%d %s", t+1, t)
		if t == m.tab {
			// Brackets mark the active tab without colour too (NO_COLOR).
			tabs = append(tabs, m.st.TabActive.Render("["+label+"]"))
		} else {
			tabs = append(tabs, m.st.TabIdle.Render(" "+label+" "))
		}
	}
	left := strings.Join(tabs, "")
	var titles []string
	for _, l := range m.stack {
		if l.FullScreen() {
			titles = append(titles, common.VisibleLine(l.Title()))
		}
	}
	right := m.st.Dim.Render("? help")
	room := m.width - ansi.StringWidth(left) - 1 - ansi.StringWidth(right)
	crumbs := breadcrumb(titles, room)
	if crumbs == "" && len(titles) > 0 {
		// The page's title goes before the help key, which the tabs show
		// again once the page closes (? and f1 still work).
		right, room = "", m.width-ansi.StringWidth(left)
		crumbs = breadcrumb(titles, room)
	}
	if crumbs != "" {
		left += m.st.Dim.Render(" › ") + strings.ReplaceAll(crumbs, " › ", m.st.Dim.Render(" › "))
	}
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 0 {
		return ansi.Truncate(left, m.width, "")
	}
	return left + strings.Repeat(" ", gap) + right
}

// breadcrumb joins the open pages' titles (" › " before each) into room
// cells, or returns "" when they cannot fit. A title too long for the
// line is shortened, the earlier ones to at most 16 cells, the last one,
// the page on screen, to what they leave, but never below 10: a path (an
// AGENTS.md's) in its middle by common.ShortPath, which keeps its last
// folders and its file name, a name at its end. The page's own header
// shows its title whole.
func breadcrumb(titles []string, room int) string {
	if len(titles) == 0 {
		return ""
	}
	whole := strings.Join(titles, " › ")
	if 3+ansi.StringWidth(whole) <= room {
		return whole
	}
	short := make([]string, len(titles))
	used := 3 * len(titles)
	for i, t := range titles[:len(titles)-1] {
		short[i] = shortTitle(t, 16)
		used += ansi.StringWidth(short[i])
	}
	last := room - used
	if last < 10 {
		return ""
	}
	short[len(short)-1] = shortTitle(titles[len(titles)-1], last)
	return strings.Join(short, " › ")
}

func shortTitle(t string, width int) string {
	if strings.Contains(t, "/") {
		return common.ShortPath(t, width)
	}
	return ansi.Truncate(t, width, "…")
}

func (m *Model) statusBar() string {
	// Notices carry error text from tools and files (a file name with an
	// escape sequence in it): shown, never interpreted.
	left := common.VisibleLine(m.notice)
	if m.noticeErr && left != "" {
		left = "✗ " + left
	}
	// The model and thinking level shown are the ones the focused place
	// would use: the open session's on the Session and Settings tabs, the
	// defaults on Projects.
	model, modelShort, thinking := m.status.model, m.status.modelShort, m.status.thinking
	if m.tab != tabProjects {
		if sm, st := m.session.Effective(); sm != "" || st != "" {
			if sm != "" && sm != m.status.modelName {
				modelShort = common.VisibleLine(sm)
				model = modelShort + " (this session)"
			}
			thinking = st
		}
	}
	// The state's parts in the order they show; on a narrow screen the
	// least needed give way first (fitParts): the thinking level's reason,
	// the engine, where the model comes from, the thinking level, the
	// model. Plan mode, a warning and the runtime's state always show.
	parts := func(warn string) []statusPart {
		var parts []statusPart
		if m.tab != tabProjects && m.session.Plan() {
			parts = append(parts, part("plan mode", keep)) // the open session's agent only reads and plans
		}
		if warn != "" {
			parts = append(parts, part("⚠ "+warn, keep))
		}
		if model != "" {
			parts = append(parts, shortened("model: "+model, 3, "model: "+modelShort, 5))
		}
		if thinking != "" {
			parts = append(parts, shortened("thinking: "+thinking, 1, "thinking: "+withoutReason(thinking), 4))
		}
		parts = append(parts, part("runtime: "+m.session.RuntimeState(), keep))
		if e := m.session.Engine(); e != "" {
			parts = append(parts, part(e, 2)) // which engine runs it: pi and its version, or builtin
		}
		return parts
	}
	w := max(m.width-2, 1)
	state := []string{fitParts(parts(m.status.warn), w)}
	if ansi.StringWidth(state[0]) > w {
		// A warning too long for the line even alone beside what always
		// shows: it wraps above the state, which keeps its own line.
		state = append(strings.Split(ansi.Wrap("⚠ "+m.status.warn, w, "/"), "\n"), fitParts(parts(""), w))
	}
	return m.statusLines(left, state)
}

// statusLines lays the status bar out (ADR 0053): the notice on the left
// and the state on the right of one line when both fit. A longer notice
// is wrapped at words over as many lines as it needs, up to
// maxNoticeLines, and the state goes to the right of its last line, or
// onto a line of its own; the body gives up the lines (bodyHeight). A
// notice is a sentence the user needs (what happened, why it failed), so
// it is never cut to the width of what is left beside the state. The
// state has left out what it can already (statusBar); a long warning in
// it is wrapped over lines of its own, below the notice.
func (m *Model) statusLines(left string, state []string) string {
	w := m.width - 2 // one space at each end
	// pair puts a on the left and b on the right of one line, at least
	// two spaces apart (b alone may take the whole line).
	pair := func(a, b string) string {
		gap := 2
		if a == "" {
			gap = 0
		}
		return a + strings.Repeat(" ", max(w-ansi.StringWidth(a)-ansi.StringWidth(b), gap)) + b
	}
	right := state[0]
	var lines []string
	switch {
	case left == "":
	case len(state) == 1 && ansi.StringWidth(left)+2+ansi.StringWidth(right) <= w:
		lines, state = []string{pair(left, right)}, nil
	default:
		// A path breaks after a slash rather than anywhere.
		lines = strings.Split(ansi.Wrap(left, max(w, 1), "/"), "\n")
		if n := m.maxNoticeLines(); len(lines) > n {
			// Past a quarter of the screen: the rest would push the
			// screen itself away.
			lines = lines[:n]
			lines[n-1] = ansi.Truncate(lines[n-1], max(w-2, 1), "") + " …"
		}
		if last := lines[len(lines)-1]; len(state) == 1 && ansi.StringWidth(last)+2+ansi.StringWidth(right) <= w {
			lines[len(lines)-1], state = pair(last, right), nil
		}
	}
	for _, s := range state {
		lines = append(lines, pair("", s))
	}
	style := m.st.StatusBar
	if m.noticeErr && m.notice != "" {
		style = m.st.Error.Reverse(true)
	}
	for i, l := range lines {
		l = " " + l + strings.Repeat(" ", max(w-ansi.StringWidth(l), 0)) + " "
		lines[i] = style.Render(ansi.Truncate(l, m.width, ""))
	}
	return strings.Join(lines, "\n")
}

// maxNoticeLines bounds how many lines a notice may take: three, or a
// quarter of a taller screen.
func (m *Model) maxNoticeLines() int { return max(3, m.height/4) }

// fitBody sizes the tabs again when the body's height changed without
// the window's: the status bar grew with a long notice, or shrank when
// it went.
func (m *Model) fitBody() {
	if h := m.bodyHeight(); h != m.bodyH {
		m.bodyH = h
		m.projects.SetSize(m.width, h)
		m.settings.SetSize(m.width, h)
		m.session.SetSize(m.width, h)
	}
}

// helpGroups names the current screen and lists its keys, then the
// global ones.
func (m *Model) helpGroups() (string, [][]key.Binding) {
	var groups [][]key.Binding
	title := m.tab.String()
	switch f := m.focus(); {
	case f == focusLayer || f == focusLayerText:
		top := m.stack[len(m.stack)-1]
		groups = top.Help()
		title = top.Title()
	case m.tab == tabProjects:
		groups = m.projects.Help()
	case m.tab == tabSettings:
		groups = m.settings.Help()
	case m.tab == tabSession:
		groups = m.session.Help()
	}
	return title, append(groups, m.globalHelp())
}

// globalHelp lists the shell's keys that apply where the focus is: in a
// page or dialog only quitting and help; elsewhere the tab keys too.
func (m *Model) globalHelp() []key.Binding { return m.globalHelpAt(m.focus(), len(m.stack)) }

// globalHelpAt is globalHelp for a focus and a number of open layers.
func (m *Model) globalHelpAt(f focus, layers int) []key.Binding {
	k := m.keys
	switch {
	case f == focusSessionText:
		// Typing in the chat: letters and digits go into the message, and
		// shift+tab is the thinking level; tab still switches tabs.
		return []key.Binding{k.ForceQuit, k.HelpTyping, k.NextTab, k.PaletteTyping}
	case f == focusProjectsFilter:
		return []key.Binding{k.ForceQuit, k.HelpTyping, k.PaletteTyping}
	case f == focusLayerText:
		return []key.Binding{k.ForceQuit, k.HelpTyping}
	case layers > 0:
		return []key.Binding{k.ForceQuit, k.Help}
	}
	return []key.Binding{k.ForceQuit, k.Quit, k.Help, k.NextTab, k.PrevTab, k.Projects, k.Palette}
}

// fit pads or cuts s to exactly h lines of at most w cells.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		// A tab is zero cells to the width functions but jumps to the
		// next tab stop on the terminal, which would shift everything
		// after it (and hide dialogs drawn over it): expand tabs here.
		if strings.IndexByte(l, '\t') >= 0 {
			l = strings.ReplaceAll(l, "\t", "    ")
			lines[i] = l
		}
		if ansi.StringWidth(l) > w {
			lines[i] = ansi.Truncate(l, w, "")
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// margin surrounds box with one blank cell on each side, as far as a
// w×h body leaves room for it: the box itself is never cut for it.
func margin(box string, w, h int) string {
	lines := strings.Split(box, "\n")
	bw := 0
	for _, l := range lines {
		bw = max(bw, ansi.StringWidth(l))
	}
	side := ""
	if bw+2 <= w {
		side = " "
	}
	for i, l := range lines {
		lines[i] = side + l + strings.Repeat(" ", bw-ansi.StringWidth(l)) + side
	}
	if len(lines)+2 <= h {
		blank := strings.Repeat(" ", bw+2*len(side))
		lines = append(append([]string{blank}, lines...), blank)
	}
	return strings.Join(lines, "\n")
}

// overlay floats box over bg, centred.
func overlay(bg, box string, w, h int) string {
	bl := strings.Split(bg, "\n")
	ol := strings.Split(box, "\n")
	bw := 0
	for _, l := range ol {
		bw = max(bw, ansi.StringWidth(l))
	}
	top := max((h-len(ol))/2, 0)
	left := max((w-bw)/2, 0)
	for i, l := range ol {
		y := top + i
		if y >= len(bl) {
			break
		}
		line := bl[y]
		pad := bw - ansi.StringWidth(l)
		head := ansi.Truncate(line, left, "")
		head += strings.Repeat(" ", max(left-ansi.StringWidth(head), 0))
		tail := ansi.TruncateLeft(line, left+bw, "")
		bl[y] = head + l + strings.Repeat(" ", pad) + tail
	}
	return strings.Join(bl, "\n")
}

// tilde writes the home folder as ~ in a sentence that names paths.
func tilde(s, home string) string {
	if home == "" || home == "/" {
		return s
	}
	return strings.ReplaceAll(s, strings.TrimSuffix(home, "/")+"/", "~/")
}

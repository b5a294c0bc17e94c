// Package settings is the Settings tab: the global AGENTS.md, the provider
// guidance in effect and the subdirectory-context switch (written to
// agent-guidance.json, other keys kept), the default model and thinking
// level (written to settings.json, other keys kept), pi-tui's permission
// mode and runtime idle TTL, the engine (auto, pi, builtin, with the pi
// found or why none can be used) and the cap on live pi runtimes
// (engine.go), every project's always-allow approval rules
// (deleted here), what is wrong with models.json and auth.json,
// and the paths in use. Reading and writing run as commands.
package settings

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/list"
)

// knownProviders are shown with the provider files they get.
var knownProviders = []string{"anthropic", "openai", "openai-codex", "azure-openai-responses", "google", "google-gemini-cli", "google-vertex"}

// ttlChoices are the idle TTLs the setting cycles through.
var ttlChoices = []time.Duration{5 * time.Minute, 15 * time.Minute, 30 * time.Minute, time.Hour, 4 * time.Hour}

type item int

const (
	itemGlobal item = iota
	itemSubdir
	itemModel
	itemThinking
	itemPermission
	itemTTL
	itemEngine
	itemPiCap
	itemCount
)

// Model is the Settings tab.
type Model struct {
	host       *host.Host
	inUse      ModelInUse // nil: a host without runtimes
	st         *common.UI
	env        func(string) string
	editGlobal func() tea.Cmd
	keys       keys
	// OpenProviders opens the Providers screen; the shell sets it (nil:
	// the key does nothing).
	OpenProviders func() tea.Cmd

	// lines are the tab below its title: the settings and the approval
	// rules, which the cursor rests on, and the text between them. They
	// scroll, so the cursor is seen on a short screen.
	lines   list.List[line]
	state   state
	loaded  bool
	loadErr string
	// loads numbers the loads started and shown is the number of the one
	// drawn: loads run at once (each time the tab is shown, after a save,
	// when a project changes) and end in any order, so a result older
	// than the one drawn is dropped; it read the files and the store
	// before the newer one did. finds and foundShown do the same for the
	// looks for the engines' programs.
	loads, shown      int
	finds, foundShown int

	// engine keeps the engine preference; engines are the host's
	// (core/engine), whose Locate finds the programs they run (pi) and
	// remembers their versions; found is what the last look found.
	engine  EngineSettings
	engines *engine.Registry
	found   looks

	width, height int
}

type keys struct {
	Nav                   list.KeyMap
	Enter, Reload, Delete key.Binding
	// Providers opens the Providers screen (OpenProviders).
	Providers key.Binding
}

// line is one line of the tab: a setting (item < itemCount), an
// approval rule (rule >= 0) or a line for reading (read names it: a
// provider's guidance, a path, "none yet"), which the cursor can rest
// on, or text (headings, blank lines, warnings).
//
// The lines for reading take the cursor so that everything the tab shows
// can be scrolled to: below the last setting, with no approval rules,
// nothing else would bring the paths into view on a short screen, and
// the cursor never leaves the screen to show them. enter and d do
// nothing on them.
type line struct {
	item item
	rule int
	read string
	draw func(width int, selected bool) string
}

func (l line) selectable() bool { return l.item < itemCount || l.rule >= 0 || l.read != "" }

// same reports whether two lines are the same setting, rule or line for
// reading.
func (l line) same(o line) bool {
	return l.selectable() && l.item == o.item && l.rule == o.rule && l.read == o.read
}

// ruleRow is one "always allow" rule in the Approval rules section.
type ruleRow struct {
	project, root string
	rule          approvals.Rule
}

// state is everything the tab shows, read by one command.
type state struct {
	globalBytes int
	globalOK    bool
	guidance    *instructions.Guidance
	guideWarn   []string
	subdir      bool
	// model is settings.json's default (the picker marks it); modelErr
	// says why settings.json cannot be read.
	model    instructions.Model
	modelErr string
	// inUse is the model a prompt naming none runs, and where it comes
	// from, as the runtimes resolve it; inUseErr is why there is none
	// (it says how to set one up).
	inUse    runtimes.ModelChoice
	inUseErr error
	models   []provider.Listed
	// problems are pi files that cannot be used (models.json, auth.json,
	// settings.json, trust.json) and key problems, one sentence each with
	// the position.
	problems []string
	thinking string // the default thinking level in effect
	prefs    services.Preferences
	engine   engineState
	// rules are every project's always-allow rules, by project name.
	rules    []ruleRow
	rulesErr string
}

// ModelInUse is what Settings asks of the runtimes
// (core/runtimes.Manager): the model a prompt naming none runs, and where
// it comes from. It is defined here, where it is asked
// (docs/adr/0090-interfaces-where-consumed.md).
type ModelInUse interface {
	Model(ctx context.Context, spec string) (runtimes.ModelChoice, error)
}

// New returns the Settings tab. inUse says which model a prompt runs;
// editGlobal opens the global AGENTS.md editor; env looks up environment
// variables (API keys).
func New(h *host.Host, inUse ModelInUse, st *common.UI, env func(string) string, editGlobal func() tea.Cmd) *Model {
	if env == nil {
		env = func(string) string { return "" }
	}
	m := &Model{host: h, inUse: inUse, st: st, env: env, editGlobal: editGlobal, keys: keys{
		Nav:       list.DefaultKeyMap(),
		Enter:     key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter", "change or open a setting; the rest is there to read")),
		Reload:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		Delete:    key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "delete the approval rule")),
		Providers: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "providers: log in, add an endpoint, MCP servers")),
	}}
	m.engine, m.engines = engineOf(h), enginesOf(h)
	m.lines = list.New[line](m.keys.Nav)
	m.lines.Selectable = line.selectable
	// A line wraps rather than being cut: it takes the lines it draws in.
	m.lines.Height = func(l line) int { return strings.Count(l.draw(m.width, false), "\n") + 1 }
	return m
}

type loadedMsg struct {
	n   int // which load this is (Model.loads)
	s   state
	err error
}

type savedMsg struct {
	notice string
	err    error
}

// Init reads the settings and looks for pi.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.load(), m.findPrograms()) }

func (m *Model) load() tea.Cmd {
	m.loads++
	n, h, inUse, env, ctx, eng := m.loads, m.host, m.inUse, m.env, m.st.Ctx, m.engine
	return func() tea.Msg {
		var s state
		agent := h.Places.AgentDir
		if c, err := instructions.New(instructions.Options{AgentDir: agent, Home: h.Places.Home}).ResolveRoot(ctx, agent); err == nil {
			for _, src := range c.Sources {
				if src.Scope == instructions.ScopeGlobal && src.Kind == instructions.KindInstructions {
					s.globalBytes, s.globalOK = src.Bytes, true
				}
			}
		}
		s.guidance, s.guideWarn = instructions.LoadGuidance(agent)
		s.subdir = s.guidance.SubdirectoryContext()
		var err error
		if s.model, err = h.DefaultModel(); err != nil {
			s.modelErr = err.Error()
		}
		if inUse != nil {
			s.inUse, s.inUseErr = inUse.Model(ctx, "")
		}
		reg := provider.Load(agent, env)
		s.models, s.problems, s.thinking = reg.Models(), reg.Problems(), reg.DefaultThinking()
		loaded := pisettings.Load(agent, "", false)
		for _, p := range loaded.Problems {
			if p.Error() != s.modelErr { // shown in the Default model row already
				s.problems = append(s.problems, p.Error())
			}
		}
		for _, p := range h.Projects.TrustProblems(ctx) {
			s.problems = append(s.problems, p.Error()+"; no project is trusted by it until it is fixed")
		}
		s.rules, err = loadRules(ctx, h)
		if err != nil {
			s.rulesErr = err.Error()
		}
		s.engine = loadEngine(ctx, eng)
		s.prefs, err = h.Preferences(ctx)
		return loadedMsg{n: n, s: s, err: err}
	}
}

// SetSize sets the drawing area: the title and its keys, a blank line,
// then the lines, scrolled to keep the cursor in view.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.lines.SetLines(h - len(m.headLines()) - 1)
}

// headLines are the tab's title and its keys, with the command palette's,
// wrapped between two keys: they are never cut.
func (m *Model) headLines() []string {
	st := m.st
	const title = "Settings"
	lines := common.HintLines(title, []string{"enter change", "↑/↓ move", "d delete rule", "r reload", common.Hint(st.Keys.Palette), "? help"}, m.width)
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, title); i == 0 && ok {
			lines[i] = st.Title.Render(title) + st.Dim.Render(rest)
		} else {
			lines[i] = st.Dim.Render(l)
		}
	}
	return lines
}

// Help lists the tab's keys.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{append(append([]key.Binding{k.Enter}, k.Nav.Bindings()...), k.Delete, k.Reload, k.Providers)}
}

// loadRules lists every project's rules, grouped by project name (a
// root no project has any more shows as its path).
func loadRules(ctx context.Context, h *host.Host) ([]ruleRow, error) {
	all, err := h.Approvals.All(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	if ps, err := h.Projects.List(ctx, true); err == nil {
		for _, p := range ps {
			names[p.Root] = p.Name
		}
	}
	var rows []ruleRow
	for root, rules := range all {
		name := names[root]
		if name == "" {
			name = paths.Tilde(root, h.Places.Home)
		}
		for _, r := range rules {
			rows = append(rows, ruleRow{project: name, root: root, rule: r})
		}
	}
	slices.SortStableFunc(rows, func(a, b ruleRow) int { return cmp.Compare(a.project, b.project) })
	return rows, nil
}

// selectedRule is the rule under the cursor, if it is on one.
func (m *Model) selectedRule() (ruleRow, bool) {
	l, ok := m.lines.Selected()
	if !ok || l.rule < 0 || l.rule >= len(m.state.rules) {
		return ruleRow{}, false
	}
	return m.state.rules[l.rule], true
}

// selectedItem is the setting under the cursor (itemCount when the cursor
// is on a rule, or nowhere).
func (m *Model) selectedItem() item {
	if l, ok := m.lines.Selected(); ok {
		return l.item
	}
	return itemCount
}

// Update handles the tab's messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.n < m.shown {
			return nil // a newer load's result is drawn already
		}
		m.shown = msg.n
		m.loaded, m.state = true, msg.s
		m.loadErr = ""
		if msg.err != nil {
			m.loadErr = msg.err.Error()
		}
		// The cursor stays on its setting or rule; a rule gone from the
		// end leaves it on the last one.
		was, had := m.lines.Selected()
		m.lines.SetItems(m.layout())
		switch {
		case !had:
			m.lines.First()
		case !m.lines.Select(was.same):
			m.lines.Last()
		}
		return nil
	case savedMsg:
		if msg.err != nil {
			return tea.Batch(common.Failure(msg.err), m.load())
		}
		return tea.Batch(common.Notice("%s", msg.notice), m.load())
	case looksMsg:
		if msg.n < m.foundShown {
			return nil
		}
		m.foundShown = msg.n
		m.found = msg.found
		if m.loaded {
			m.lines.SetItems(m.layout())
		}
		return nil
	case common.ProjectsChangedMsg:
		return m.load() // the global AGENTS.md may have been saved
	case tea.KeyMsg:
		switch {
		case m.lines.Update(msg):
		case key.Matches(msg, m.keys.Reload):
			return m.Init()
		case key.Matches(msg, m.keys.Providers) && m.OpenProviders != nil:
			return m.OpenProviders()
		case key.Matches(msg, m.keys.Delete):
			if row, ok := m.selectedRule(); ok {
				rules, ctx := m.host.Approvals, m.st.Ctx
				what := common.VisibleLine(row.rule.String()) + " of " + common.VisibleLine(row.project)
				// Asked first: a rule is one key away from gone, and what
				// it allowed will ask again.
				return m.st.Push(dialog.NewConfirm(m.st, "Delete approval rule", "Delete the rule "+what+"? Calls it allowed will ask again.", func() tea.Cmd {
					return func() tea.Msg {
						err := rules.Delete(ctx, row.root, row.rule)
						return savedMsg{notice: "deleted the approval rule " + what, err: err}
					}
				}))
			}
		case key.Matches(msg, m.keys.Enter) && m.loaded:
			return m.activate()
		}
	}
	return nil
}

func (m *Model) activate() tea.Cmd {
	h, ctx := m.host, m.st.Ctx
	switch m.selectedItem() {
	case itemGlobal:
		return m.editGlobal()
	case itemSubdir:
		on := !m.state.subdir
		path := filepath.Join(h.Places.AgentDir, instructions.GuidanceFile)
		return func() tea.Msg {
			err := pisettings.UpdateFile(path, func(o *pisettings.Object) error { return o.SetValue("subdirectoryContext", on) })
			return savedMsg{notice: fmt.Sprintf("subdirectory context %s (written to %s)", onOff(on), paths.Tilde(path, h.Places.Home)), err: err}
		}
	case itemModel:
		return m.st.Push(newModelPicker(m.st, m.state.models, m.state.model, m.setModel))
	case itemThinking:
		next := provider.NextThinking(provider.ThinkingLevelNames(), m.state.thinking)
		path := filepath.Join(h.Places.AgentDir, pisettings.FileName)
		return func() tea.Msg {
			err := pisettings.UpdateFile(path, func(o *pisettings.Object) error { return o.SetValue(pisettings.ThinkingLevelKey, next) })
			return savedMsg{notice: fmt.Sprintf("default thinking level: %s (written to %s)", next, paths.Tilde(path, h.Places.Home)), err: err}
		}
	case itemPermission:
		next := services.PermissionModes[0]
		for i, pm := range services.PermissionModes {
			if pm == m.state.prefs.PermissionMode {
				next = services.PermissionModes[(i+1)%len(services.PermissionModes)]
			}
		}
		return func() tea.Msg {
			return savedMsg{notice: "permission mode: " + next, err: h.SetPermissionMode(ctx, next)}
		}
	case itemEngine:
		return m.nextEngine()
	case itemPiCap:
		return m.nextPiCap()
	case itemTTL:
		next := ttlChoices[0]
		for i, d := range ttlChoices {
			if d == m.state.prefs.IdleTTL {
				next = ttlChoices[(i+1)%len(ttlChoices)]
			}
		}
		return func() tea.Msg {
			return savedMsg{notice: "runtime idle TTL: " + ttlText(next), err: h.SetIdleTTL(ctx, next)}
		}
	}
	return nil
}

func (m *Model) setModel(ref provider.Listed) tea.Cmd {
	path := filepath.Join(m.host.Places.AgentDir, pisettings.FileName)
	notice := "default model: " + ref.String()
	if !ref.Usable {
		notice += "; it needs a key: " + ref.Hint
	}
	return func() tea.Msg {
		err := pisettings.UpdateFile(path, func(o *pisettings.Object) error {
			if err := o.SetValue("defaultProvider", ref.Provider); err != nil {
				return err
			}
			return o.SetValue("defaultModel", ref.ID)
		})
		return savedMsg{notice: notice, err: err}
	}
}

func subdirText(on bool) string {
	if on {
		return "on — nested AGENTS.md files reach the agent with file tools"
	}
	return "off — nested AGENTS.md files are not sent to the agent"
}

func permissionText(mode string) string {
	switch mode {
	case services.PermissionAutoEdits:
		return "auto-edits — edits run freely; commands need approval"
	case services.PermissionFullAuto:
		return "full-auto — edits and commands run without asking"
	}
	return "ask — edits and commands need approval"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func ttlText(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}

// layout lays the state out in lines, each drawn at the width of the
// moment.
func (m *Model) layout() []line {
	st, s := m.st, m.state
	home := m.host.Places.Home
	var out []line
	text := func(draw func(w int) string) {
		out = append(out, line{item: itemCount, rule: -1, draw: func(w int, _ bool) string { return draw(w) }})
	}
	fixed := func(t string) { text(func(int) string { return t }) }
	// read is para for a line the cursor may rest on, named by key: "› "
	// takes the place of the last two spaces before its text.
	read := func(key, first, t string) {
		out = append(out, line{item: itemCount, rule: -1, read: key, draw: func(w int, selected bool) string {
			if !selected {
				return hanging(st.Normal, first, strings.Repeat(" ", ansi.StringWidth(first)), t, w)
			}
			return readSelected(st, first, t, w)
		}})
	}
	// para is text that wraps: first before its first line, as many
	// spaces before the others.
	para := func(first, t string, style lipgloss.Style) {
		rest := strings.Repeat(" ", ansi.StringWidth(first))
		text(func(w int) string { return hanging(style, first, rest, t, w) })
	}
	globalPath := paths.Tilde(filepath.Join(m.host.Places.AgentDir, "AGENTS.md"), home)
	global := "not created yet"
	if s.globalOK {
		global = fmt.Sprintf("%d bytes", s.globalBytes)
	}
	model, modelStyle := m.modelText(), st.Normal
	if s.inUseErr != nil {
		modelStyle = st.Warn
	}
	if s.modelErr != "" {
		model, modelStyle = common.VisibleLine(tildeText(s.modelErr, home)), st.Error
	}
	// The labels are settingNames, which the command palette searches.
	settings := []struct {
		value string
		style lipgloss.Style
	}{
		itemGlobal:     {fmt.Sprintf("%s (%s) — enter to edit", globalPath, global), st.Normal},
		itemSubdir:     {subdirText(s.subdir), st.Normal},
		itemModel:      {model, modelStyle},
		itemThinking:   {s.thinking + " — shift+tab or /thinking changes it per session", st.Normal},
		itemPermission: {permissionText(s.prefs.PermissionMode), st.Normal},
		itemTTL:        {ttlText(s.prefs.IdleTTL) + " — idle runtimes are retired after this", st.Normal},
		itemEngine:     {m.engineText(), st.Normal},
		itemPiCap:      {m.piCapText(), st.Normal},
	}
	for i, r := range settings {
		out = append(out, line{item: item(i), rule: -1, draw: func(w int, selected bool) string {
			return settingRow(st, settingNames[i], r.value, r.style, w, selected)
		}})
	}
	warn := func(p string) {
		text(func(w int) string {
			return hanging(st.Warn, "  "+st.Warn.Render("!")+" ", "    ", common.VisibleLine(p), w)
		})
	}
	if s.engine.err != "" {
		warn(s.engine.err)
	}
	for _, p := range s.problems {
		warn(tildeText(p, home))
	}
	fixed("")
	fixed(st.Section.Render("Provider guidance in effect"))
	for _, p := range knownProviders {
		f := strings.Join(s.guidance.FilesFor(instructions.Model{Provider: p}), ", ")
		if f == "" {
			f = "(none)"
		}
		read("guidance "+p, fmt.Sprintf("  %-24s ", p), common.VisibleLine(f))
	}
	if pats := s.guidance.ModelPatterns(); len(pats) > 0 {
		fixed("  model patterns (first match wins):")
		for i, p := range pats {
			read(fmt.Sprintf("pattern %d", i), "    ", common.VisibleLine(p))
		}
	}
	for _, w := range s.guideWarn {
		warn(w)
	}
	fixed("")
	fixed(st.Section.Render("Paths"))
	read("agent dir", "  agent dir  ", common.VisibleLine(paths.Tilde(m.host.Places.AgentDir, home)))
	read("data dir", "  data dir   ", common.VisibleLine(paths.Tilde(m.host.Places.DataDir, home)))
	read("database", "  database   ", common.VisibleLine(paths.Tilde(m.host.Places.Database(), home)))
	fixed("")
	text(func(w int) string {
		const title = "Approval rules  "
		indent := strings.Repeat(" ", len(title))
		hint := hanging(st.Dim, indent, indent, "d deletes · copy in "+
			filepath.Join(".pi", approvals.ExportName)+", never read back · A in an approval adds one", w)
		return st.Section.Render("Approval rules") + "  " + strings.TrimPrefix(hint, indent)
	})
	if len(s.rules) == 0 {
		out = append(out, line{item: itemCount, rule: -1, read: "no rules", draw: func(_ int, selected bool) string {
			if selected {
				return st.Selected.Render("› none yet")
			}
			return st.Dim.Render("  none yet")
		}})
	}
	last := ""
	for i, r := range s.rules {
		if r.project != last {
			para("  ", common.VisibleLine(r.project), st.Normal)
			last = r.project
		}
		out = append(out, line{item: itemCount, rule: i, draw: func(w int, selected bool) string {
			// The whole pattern shows: it is what d would delete.
			lines := wrapText(common.VisibleLine(r.rule.Pattern), w-15)
			for j, l := range lines {
				lead := fmt.Sprintf("  %-6s ", r.rule.Tool)
				if j > 0 {
					lead = strings.Repeat(" ", len(lead))
				}
				if selected {
					mark := "  "
					if j == 0 {
						mark = "› "
					}
					lines[j] = "  " + st.Selected.Render(mark+lead+l)
				} else {
					lines[j] = "    " + lead + l
				}
			}
			return strings.Join(lines, "\n")
		}})
	}
	if s.rulesErr != "" {
		warn(s.rulesErr)
	}
	if m.loadErr != "" {
		para("", common.VisibleLine(m.loadErr), st.Error)
	}
	return out
}

// View draws the tab: its title, then the window of its lines.
func (m *Model) View() string {
	st := m.st
	head := strings.Join(m.headLines(), "\n") + "\n\n"
	if !m.loaded {
		return head + st.Dim.Render("loading…")
	}
	var lines []string
	for i, l := range m.lines.Window() {
		lines = append(lines, l.draw(m.width, i == m.lines.Cursor()))
	}
	return head + strings.Join(lines, "\n")
}

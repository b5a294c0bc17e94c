// Package projects is the Projects tab: the registered projects in
// sections (Pinned, Projects, Archived), a filter, two sort orders, the
// add-project dialog and each row's menu. Loading and every change run as
// commands; Update only arranges what they return.
package projects

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// Actions opens the other screens a row menu leads to. The shell provides
// it, so this package does not import the editors.
type Actions struct {
	// EditAgents edits the AGENTS.md of dir, one of p's folders.
	EditAgents       func(p registry.Project, dir string) tea.Cmd
	EditMemory       func(p registry.Project) tea.Cmd
	ShowInstructions func(p registry.Project) tea.Cmd
	OpenSession      func(p registry.Project) tea.Cmd
}

// KeyMap is the Projects tab's keys. It is the one table behind the
// handling, the hint line, the help and the row menu: the row keys act on
// the selected project directly, and the menu that enter opens lists the
// same bindings.
type KeyMap struct {
	// The moving keys: ↑/k ↓/j pgup pgdn home end/G (g moves a project
	// to a group).
	list.KeyMap
	Filter, ClearFilter, Sort, Add, Menu key.Binding
	Fold                                 key.Binding
	// While the filter has the keys, enter keeps it (the filter's
	// partner, shown with it) and these move through the matches: they
	// type nothing.
	KeepFilter  key.Binding
	FilterMoves list.KeyMap

	// Row keys, in the order the row menu lists them.
	Open, Agents, Memory, AgentWrites, Instructions, Rename, Pin, Archive, Trust, Group, AddFolder, RemoveFolder, Relocate, Remove key.Binding
}

// DefaultKeyMap returns the Projects keys.
func DefaultKeyMap() KeyMap {
	nav := list.DefaultKeyMap()
	nav.Top.SetKeys("home")
	nav.Top.SetHelp("home", "first")
	moves := list.TypingKeyMap()
	for _, b := range []*key.Binding{&moves.Up, &moves.Down, &moves.PageUp, &moves.PageDown} {
		b.SetHelp("", "") // shown as Up, Down, PageUp, PageDown
	}
	return KeyMap{
		KeyMap:      nav,
		KeepFilter:  key.NewBinding(key.WithKeys("enter")),
		FilterMoves: moves,
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Sort:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),
		Add:         key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "add project")),
		Menu:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "menu")),
		Fold:        key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "fold group")),

		Open:         bind("o", "Open session"),
		Agents:       bind("a", "Edit AGENTS.md"),
		Memory:       bind("m", "Edit memory"),
		AgentWrites:  bind("w", "Agent may write memory: on/off"),
		Instructions: bind("i", "Show instructions"),
		Rename:       bind("r", "Rename"),
		Pin:          bind("p", "Pin"),
		Archive:      bind("x", "Archive"),
		Trust:        bind("t", "Trust (load nested instructions)"),
		Group:        bind("g", "Move to group…"),
		AddFolder:    bind("f", "Add a folder…"),
		RemoveFolder: bind("F", "Remove a folder…"),
		Relocate:     bind("L", "Relocate (folder moved)…"),
		Remove:       bind("D", "Remove…"),
	}
}

func bind(k, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc))
}

// rowKeys are the row keys in menu order.
func (k KeyMap) rowKeys() []key.Binding {
	return []key.Binding{k.Open, k.Agents, k.Memory, k.AgentWrites, k.Instructions, k.Rename, k.Pin, k.Archive, k.Trust, k.Group, k.AddFolder, k.RemoveFolder, k.Relocate, k.Remove}
}

type sortMode int

const (
	sortRecent sortMode = iota
	sortName
)

// String names the order as the preferences service keeps it.
func (s sortMode) String() string {
	if s == sortName {
		return services.ProjectSortName
	}
	return services.ProjectSortRecent
}

// row is one line of the list: a section heading or a project. A heading
// with a fold key can be folded, and the cursor can rest on it.
type row struct {
	heading string
	fold    string // core/registry.FoldKey of a foldable section's projects
	index   int    // into Model.all
}

// selectable reports whether the cursor may rest on the row.
func (r row) selectable() bool { return r.heading == "" || r.fold != "" }

// Model is the Projects tab.
type Model struct {
	host    *host.Host
	changes *events.Subscription // project changes in the process
	watch   *changeWatch         // shared with the goroutine waiting for changes
	// ctx is the tab's life (the program's, ended early by Close): its
	// loads and changes run in it.
	ctx     context.Context
	stop    context.CancelFunc // ends ctx: changes, the reload timer, loads
	done    <-chan struct{}    // ctx.Done()
	st      *common.UI
	keys    KeyMap
	actions Actions
	// fingerprinted is set once the projects' fingerprints were
	// refreshed after the first load.
	fingerprinted bool

	all     []registry.Project
	lower   []string          // lower-cased name and folders' paths and names, for filtering
	winners map[string]string // project id → root instruction file in effect
	rows    list.List[row]    // headings and projects; the cursor rests on a project or a foldable heading
	sort    sortMode
	// sortKnown is set once the remembered order has been read (with the
	// first list) or the user chose one: later loads leave it alone, so
	// another window sorting its list does not re-sort this one.
	sortKnown bool
	filter    textinput.Model
	filterOn  bool
	// folded holds the sections folded now (by fold key); the archived
	// are folded unless opened.
	folded map[string]bool

	loading bool
	pre     *Preload        // the first load, read ahead (UsePreload), until Init uses it
	want    string          // project to select after the next load
	stamp   services.Stamp  // the database files as the last load found them
	writes  map[string]bool // project id → the agent may write memory
	spin    spinner.Model
	loadErr string
	now     func() time.Time
	polls   Polls

	width, height int
}

// New returns the Projects tab. It loads on Init; its work ends with the
// program's context (st.Ctx) or at Close.
func New(h *host.Host, st *common.UI, actions Actions) *Model {
	f := textinput.New()
	f.Prompt = "/"
	f.CharLimit = 128
	sp := spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m := &Model{host: h, st: st, watch: &changeWatch{}, keys: DefaultKeyMap(), actions: actions, filter: f,
		winners: map[string]string{}, loading: true, spin: sp, now: time.Now, polls: DefaultPolls(),
		folded: map[string]bool{archivedFold: true}}
	m.rows = list.New[row](m.keys.KeyMap)
	m.rows.Height = m.rowHeight
	m.rows.Selectable = row.selectable
	m.rows.SetLines(m.listHeight())
	ctx, stop := context.WithCancel(st.Ctx)
	m.ctx, m.stop, m.done = ctx, stop, ctx.Done()
	// Writes through the registry and memory saves, by this program or
	// another in the process (an SSH client), reload the list.
	m.changes = h.Events.Subscribe(ctx, events.Projects)
	return m
}

// Close ends the tab's subscription to project changes.
func (m *Model) Close() {
	if m.stop != nil {
		m.stop()
	}
}

// Seen tells the tab whether it is on screen; shown again after changes
// arrived while hidden, it reloads.
func (m *Model) Seen(on bool) tea.Cmd {
	m.watch.seen.Store(on)
	if on && m.watch.stale.Swap(false) {
		return m.loadRows()
	}
	return nil
}

// changeWatch is what the goroutine waiting for project changes shares
// with the tab: whether the list is seen, and whether changes arrived
// while it was not. A hidden list gets no message at all (a server of
// twenty programs each saving memory would otherwise wake and redraw every
// program for every save); it catches up when it shows again.
type changeWatch struct {
	seen, stale atomic.Bool
}

// changesMsg says a burst of project changes ended while the list was seen.
type changesMsg struct{}

// settleFor is how long a burst of project changes is gathered into one
// reload.
const settleFor = 150 * time.Millisecond

// loadRows reloads the list for changes announced in the process.
func (m *Model) loadRows() tea.Cmd {
	load := m.load()
	return func() tea.Msg {
		msg := load()
		if l, ok := msg.(loadedMsg); ok {
			l.rows = true
			return l
		}
		return msg
	}
}

// waitChanges waits, off the update loop, for a burst of project changes
// to end while the list is seen (see changeWatch).
func (m *Model) waitChanges() tea.Cmd {
	sub, w, done := m.changes, m.watch, m.done
	if sub == nil {
		return nil
	}
	return func() tea.Msg {
		for {
			if _, ok := sub.Next(); !ok {
				return nil // the program is closing
			}
			if !w.seen.Load() {
				w.stale.Store(true)
				continue
			}
			t := time.NewTimer(settleFor) // the rest of the burst
			select {
			case <-t.C:
				return changesMsg{}
			case <-done:
				t.Stop()
				return nil
			}
		}
	}
}

// archivedFold is the fold key of the Archived section.
const archivedFold = "archived"

// foldsMsg carries the remembered folding.
type foldsMsg map[string]bool

// loadedMsg carries a fresh project list and the database stamp taken
// before it was read.
type loadedMsg struct {
	list   []registry.Project
	writes map[string]bool // project id → the agent may write memory; nil: unknown
	stamp  services.Stamp
	err    error
	// rows: a reload for a change announced in the process (a rename, a
	// memory save): the instruction files in effect did not change, so
	// only new projects' are looked up.
	rows bool
	// sort is the remembered order of the list, read with the first
	// list ("" when not read).
	sort string
}

// winnersMsg carries the root instruction file of each project (part:
// of some projects only, added to what is known).
type winnersMsg struct {
	of   map[string]string
	part bool
}

// changedMsg reports the result of a change made from this tab.
type changedMsg struct {
	notice string
	err    error
}

// Init starts the first load and the periodic reload.
func (m *Model) Init() tea.Cmd {
	reg, ctx := m.host.Projects, m.ctx
	folds := func() tea.Msg {
		f, _ := reg.Folds(ctx) // none remembered: the defaults
		return foldsMsg(f)
	}
	return tea.Batch(folds, m.load(), m.spin.Tick, m.reloadTick(), m.waitChanges(), m.watchStamp())
}

// Shown reports whether the first list has arrived, so the next frame
// shows it: the shell starts what that frame does not need after it.
func (m *Model) Shown() bool { return !m.loading }

// Polls are how often the tab looks for changes that no event announces.
type Polls struct {
	// Stamp is how often the database files are looked at for writes by
	// another process (the pi-tui CLI adding a project), which the
	// in-process broker never hears of. A look is two stat calls; only a
	// changed stamp reloads the list.
	Stamp time.Duration
	// Reload is how often the list is reloaded anyway, so a folder
	// deleted while pi-tui runs is marked missing without any key pressed
	// (no write announces that); every change made through pi-tui arrives
	// at once through the broker.
	Reload time.Duration
}

// DefaultPolls are the intervals a program uses: a look at the database
// stamp every 2 s, a reload every 60 s.
func DefaultPolls() Polls { return Polls{Stamp: 2 * time.Second, Reload: 60 * time.Second} }

// SetPolls changes the intervals (a test shortens them, so that it waits
// for the look rather than for the clock); a zero field keeps its
// interval. Call it before Init.
func (m *Model) SetPolls(p Polls) {
	if p.Stamp > 0 {
		m.polls.Stamp = p.Stamp
	}
	if p.Reload > 0 {
		m.polls.Reload = p.Reload
	}
}

// stampMsg carries the database stamp seen at a look.
type stampMsg services.Stamp

// watchStamp takes the database stamp after polls.Stamp, or ends when the
// tab is closed: like reloadTick, it must not outlive the program.
func (m *Model) watchStamp() tea.Cmd {
	done, h, every := m.done, m.host, m.polls.Stamp
	return func() tea.Msg {
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-t.C:
			return stampMsg(h.Stamp())
		case <-done:
			return nil
		}
	}
}

type reloadTickMsg struct{}

// reloadTick waits polls.Reload, or until the tab is closed: a timer
// must not outlive the program that set it.
func (m *Model) reloadTick() tea.Cmd {
	done, every := m.done, m.polls.Reload
	return func() tea.Msg {
		t := time.NewTimer(every)
		defer t.Stop()
		select {
		case <-t.C:
			return reloadTickMsg{}
		case <-done:
			return nil
		}
	}
}

func (m *Model) load() tea.Cmd {
	h, ctx := m.host, m.ctx
	if pre := m.pre; pre != nil {
		m.pre = nil
		return func() tea.Msg {
			select {
			case <-pre.done:
				return pre.msg
			case <-ctx.Done():
				return nil
			}
		}
	}
	withSort := !m.sortKnown
	return func() tea.Msg { return readList(ctx, h, withSort) }
}

// readList reads the list as a loadedMsg, and with withSort the order it
// was last sorted in (a first list is shown in it from the start).
func readList(ctx context.Context, h *host.Host, withSort bool) loadedMsg {
	// The stamp is taken first: a write after it, even during the
	// read, changes the stamp the next look compares.
	stamp := h.Stamp()
	list, err := h.Projects.List(ctx, true)
	// Every project's agent-writes switch, for the row menu; nil when
	// it cannot be read (the menu then says on/off without the state).
	writes, werr := h.Memory.AllAgentWrites(ctx)
	if werr != nil {
		writes = nil
	}
	msg := loadedMsg{list: list, writes: writes, stamp: stamp, err: err}
	if withSort {
		// One that cannot be read leaves the list by recent use.
		msg.sort, _ = h.ProjectSort(ctx)
	}
	return msg
}

// Preload is a first list being read ahead of the program: the terminal
// UI starts it as soon as the host is open, so the list is read while the
// terminal is asked its background and the program starts, not after.
type Preload struct {
	done chan struct{}
	msg  loadedMsg
}

// StartPreload starts reading the list for one program's tab (UsePreload).
func StartPreload(ctx context.Context, h *host.Host) *Preload {
	p := &Preload{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.msg = readList(ctx, h, true)
	}()
	return p
}

// UsePreload makes p the tab's first load; call it before Init.
func (m *Model) UsePreload(p *Preload) { m.pre = p }

// findWinners resolves, off the UI goroutine, which instruction file is in
// effect at each project's root. It reads no agent dir: the row shows the
// project's own file.
func findWinners(ctx context.Context, list []registry.Project) tea.Cmd {
	return resolveWinners(ctx, list, false)
}

func resolveWinners(ctx context.Context, list []registry.Project, part bool) tea.Cmd {
	return func() tea.Msg {
		r := instructions.New(instructions.Options{})
		out := make(map[string]string, len(list))
		for _, p := range list {
			if p.Missing {
				continue
			}
			c, err := r.ResolveRoot(ctx, p.Root)
			if err != nil {
				continue
			}
			names := []string{}
			for _, s := range c.Sources {
				if s.Scope == instructions.ScopeProject && s.Kind == instructions.KindInstructions {
					names = append(names, s.Label)
				}
			}
			out[p.ID] = strings.Join(names, ", ")
		}
		return winnersMsg{of: out, part: part}
	}
}

// fingerprintGitRuns bounds how often the first refresh may run git: a
// list of projects from before fingerprints existed would otherwise run
// it once per repository at every start until all are recorded.
const fingerprintGitRuns = 20

// refreshFingerprints records, off the UI goroutine and once per start,
// the fingerprint of every project whose folder is there, so that one
// whose folder later moves is recognised when the new folder is added.
func refreshFingerprints(ctx context.Context, reg *registry.Registry, list []registry.Project) tea.Cmd {
	return func() tea.Msg {
		reg.RefreshFingerprints(ctx, list, fingerprintGitRuns)
		return nil
	}
}

// SetSize sets the area the tab draws in.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.rows.SetLines(m.listHeight())
}

// Filtering reports whether the filter field has the keys, so the shell
// keeps global letter keys such as q away from it.
func (m *Model) Filtering() bool { return m.filterOn }

// Help returns the tab's keys.
func (m *Model) Help() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{{k.Menu, k.Add, k.Filter, k.Sort, k.Fold}, k.rowKeys(), {k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.ClearFilter}}
}

// hints are the line under the title: the most used keys, from the
// table, and the shell's command palette, which a new user would not
// find otherwise.
func (m *Model) hints() []string {
	k := m.keys
	var parts []string
	for _, h := range []struct {
		b    key.Binding
		word string
	}{{k.Menu, "menu"}, {k.Open, "open"}, {k.Memory, "memory"}, {k.Group, "group"}, {k.Add, "add"}, {k.Filter, "filter"}, {k.Sort, "sort"}} {
		parts = append(parts, h.b.Help().Key+" "+h.word)
	}
	return append(parts, common.Hint(m.st.Keys.Palette), "? help")
}

// headLines are the lines above the list: the title, then the filter
// field while it is in use, else the hints, wrapped between two hints.
func (m *Model) headLines() []string {
	if m.filterOn || m.filter.Value() != "" {
		return []string{m.filter.View()}
	}
	lines := common.HintLines("", m.hints(), m.width)
	for i, l := range lines {
		lines[i] = m.st.Dim.Render(l)
	}
	return lines
}

// Update handles the tab's messages.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case loadedMsg:
		m.loading = false
		m.stamp = msg.stamp
		if msg.err != nil {
			m.loadErr = common.Visible(msg.err.Error()) // may name a folder
			return nil
		}
		m.loadErr = ""
		if msg.sort != "" && !m.sortKnown {
			m.sortKnown = true
			if msg.sort == services.ProjectSortName {
				m.sort = sortName
			}
		}
		keep := m.selectedID()
		if m.want != "" {
			keep, m.want = m.want, ""
		}
		m.all, m.writes = msg.list, msg.writes
		m.lower = make([]string, len(m.all))
		for i, p := range m.all {
			m.lower[i] = strings.ToLower(p.Name + "\x00" + p.Root + folderText(p))
		}
		m.rebuild(keep)
		if msg.rows {
			var fresh []registry.Project
			for _, p := range m.all {
				if _, known := m.winners[p.ID]; !known {
					fresh = append(fresh, p)
				}
			}
			if len(fresh) == 0 {
				return nil
			}
			return resolveWinners(m.ctx, fresh, true)
		}
		return findWinners(m.ctx, m.all)
	case winnersMsg:
		if msg.part {
			for id, w := range msg.of {
				m.winners[id] = w
			}
			return nil
		}
		m.winners = msg.of
		if !m.fingerprinted {
			// After the list and its instruction files are shown, so
			// the first frame never waits for it.
			m.fingerprinted = true
			return refreshFingerprints(m.ctx, m.host.Projects, m.all)
		}
		return nil
	case foldsMsg:
		for k, v := range msg {
			m.folded[k] = v
		}
		m.rebuild(m.selectedID())
		return nil
	case changedMsg:
		cmds := []tea.Cmd{m.load()}
		if msg.err != nil {
			cmds = append(cmds, common.Failure(msg.err))
		} else if msg.notice != "" {
			cmds = append(cmds, common.Notice("%s", msg.notice))
		}
		return tea.Batch(cmds...)
	case common.ProjectsChangedMsg:
		return m.load()
	case changesMsg:
		return tea.Batch(m.loadRows(), m.waitChanges())
	case SelectMsg:
		m.want = msg.ID
		return m.load()
	case folderRemovalMsg:
		return m.removeFolderDialog(msg)
	case stampMsg:
		if services.Stamp(msg) != m.stamp {
			// Written since the last load, here or by another process.
			m.stamp = services.Stamp(msg)
			if !m.watch.seen.Load() {
				m.watch.stale.Store(true) // reloaded when shown
				return m.watchStamp()
			}
			return tea.Batch(m.loadRows(), m.watchStamp())
		}
		return m.watchStamp()
	case reloadTickMsg:
		// Folders can vanish (or come back) while pi-tui runs.
		return tea.Batch(m.load(), m.reloadTick())
	case spinner.TickMsg:
		if !m.loading {
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd
	case tea.KeyMsg:
		return m.key(msg)
	}
	return nil
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.filterOn {
		switch {
		case key.Matches(msg, k.ClearFilter):
			m.filterOn = false
			m.filter.Blur()
			m.filter.SetValue("")
			m.rebuild(m.selectedID())
			return nil
		case key.Matches(msg, k.KeepFilter):
			m.filterOn = false
			m.filter.Blur()
			return nil
		case k.FilterMoves.Matches(msg):
			// Moving through the matches does not leave the filter.
		default:
			var cmd tea.Cmd
			before := m.filter.Value()
			m.filter, cmd = m.filter.Update(msg)
			if m.filter.Value() != before {
				m.rebuild(m.selectedID())
			}
			return cmd
		}
	}
	switch {
	case m.rows.Update(msg):
	case key.Matches(msg, k.Filter):
		m.filterOn = true
		return m.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		if m.filter.Value() != "" {
			m.filter.SetValue("")
			m.rebuild(m.selectedID())
		}
	case key.Matches(msg, k.Sort):
		m.sort, m.sortKnown = 1-m.sort, true
		m.rebuild(m.selectedID())
		return m.keepSort()
	case key.Matches(msg, k.Add):
		return m.st.Push(newAddDialog(m.host, m.st))
	case key.Matches(msg, k.Fold):
		return m.toggleFold()
	case key.Matches(msg, k.Menu):
		if p, ok := m.Selected(); ok {
			return m.st.Push(m.menu(p))
		}
		return m.toggleFold()
	default:
		if p, ok := m.Selected(); ok {
			return m.rowKey(p, msg)
		}
		// A row key with no project under the cursor says why nothing
		// happened.
		for _, b := range k.rowKeys() {
			if !key.Matches(msg, b) {
				continue
			}
			if len(m.all) == 0 {
				return common.Notice("%s: there is no project yet; %s adds one", b.Help().Desc, k.Add.Help().Key)
			}
			return common.Notice("%s acts on a project, and the cursor is on a section heading: move to a project (%s); enter or %s folds the section",
				b.Help().Key, k.Down.Help().Key, k.Fold.Help().Key)
		}
	}
	return nil
}

// keepSort remembers the list's order for the next start, through the
// preferences; the notice comes once it is kept.
func (m *Model) keepSort() tea.Cmd {
	h, order, ctx := m.host, m.sort, m.ctx
	return func() tea.Msg {
		if err := h.SetProjectSort(ctx, order.String()); err != nil {
			return common.NoticeMsg{Text: fmt.Sprintf("sorted by %s, but it could not be kept for the next start: %v", order, err), Error: true}
		}
		return common.NoticeMsg{Text: fmt.Sprintf("sorted by %s", order)}
	}
}

// toggleFold folds or opens the section under the cursor (a heading, or
// a project's group) and remembers it.
func (m *Model) toggleFold() tea.Cmd {
	c := m.rows.Cursor()
	if c < 0 {
		return nil
	}
	r := m.rows.Row(c)
	fold := r.fold
	if r.heading == "" {
		for i := c; i >= 0; i-- { // the project's section heading
			if h := m.rows.Row(i); h.heading != "" {
				fold = h.fold
				break
			}
		}
	}
	if fold == "" {
		return nil
	}
	m.folded[fold] = !m.folded[fold]
	// The cursor goes to the heading, which stays when its rows go.
	keep := c
	for i := range m.rows.Len() {
		if h := m.rows.Row(i); h.heading != "" && h.fold == fold {
			keep = i
		}
	}
	m.rebuild("")
	m.rows.SetCursor(keep)
	reg, v, ctx := m.host.Projects, m.folded[fold], m.ctx
	return func() tea.Msg {
		if err := reg.SetFolded(ctx, fold, v); err != nil {
			return changedMsg{err: err}
		}
		return nil
	}
}

// Selected returns the project under the cursor.
func (m *Model) Selected() (registry.Project, bool) {
	r, ok := m.rows.Selected()
	if !ok || r.heading != "" || r.index >= len(m.all) {
		return registry.Project{}, false
	}
	return m.all[r.index], true
}

func (m *Model) selectedID() string {
	if p, ok := m.Selected(); ok {
		return p.ID
	}
	return ""
}

// rebuild recomputes the visible rows from the list, the filter, the
// folding and the sort, keeping the cursor on the project with id keep
// when it is shown. Sections: Pinned, each group (by name), the
// ungrouped Projects, Archived. A filter looks inside folded sections
// too, so every match is shown.
func (m *Model) rebuild(keep string) {
	q := strings.ToLower(strings.TrimSpace(m.filter.Value()))
	type section struct {
		name, fold string
		idx        []int
	}
	pinned := &section{name: "Pinned"}
	normal := &section{name: "Projects"}
	archived := &section{name: "Archived", fold: archivedFold}
	groups := map[string]*section{}
	var order []*section
	for i, p := range m.all {
		if q != "" && !strings.Contains(m.lower[i], q) {
			continue
		}
		var sec *section
		switch registry.Section(p) {
		case registry.SectionArchived:
			sec = archived
		case registry.SectionPinned:
			sec = pinned
		case registry.SectionGrouped:
			fk := registry.FoldKey(p)
			if sec = groups[fk]; sec == nil {
				sec = &section{name: p.Group, fold: fk}
				groups[fk] = sec
				order = append(order, sec)
			}
		default:
			sec = normal
		}
		sec.idx = append(sec.idx, i)
	}
	sort.Slice(order, func(i, j int) bool { return strings.ToLower(order[i].name) < strings.ToLower(order[j].name) })
	all := append(append([]*section{pinned}, order...), normal, archived)
	rows := m.rows.Items()[:0]
	for _, sec := range all {
		if len(sec.idx) == 0 {
			continue
		}
		folded := sec.fold != "" && m.folded[sec.fold] && q == ""
		head := fmt.Sprintf("%s (%d)", sec.name, len(sec.idx))
		if sec.fold != "" {
			mark := "▾ "
			if folded {
				mark = "▸ "
			}
			head = mark + head
		}
		rows = append(rows, row{heading: head, fold: sec.fold})
		if folded {
			continue
		}
		m.sortIdx(sec.idx)
		for _, i := range sec.idx {
			rows = append(rows, row{index: i})
		}
	}
	m.rows.SetItems(rows)
	if keep == "" || !m.rows.Select(func(r row) bool { return r.heading == "" && m.all[r.index].ID == keep }) {
		m.rows.First()
	}
}

func (m *Model) sortIdx(idx []int) {
	byName := func(a, b int) bool {
		na, nb := strings.ToLower(m.all[a].Name), strings.ToLower(m.all[b].Name)
		if na != nb {
			return na < nb
		}
		return m.all[a].Root < m.all[b].Root
	}
	if m.sort == sortName {
		sort.SliceStable(idx, func(i, j int) bool { return byName(idx[i], idx[j]) })
		return
	}
	opened := func(p registry.Project) int64 {
		if p.LastOpenedAt != nil {
			return *p.LastOpenedAt
		}
		return p.CreatedAt
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := opened(m.all[idx[i]]), opened(m.all[idx[j]])
		if a != b {
			return a > b
		}
		return byName(idx[i], idx[j])
	})
}

// Each project takes two lines, and one more when it has folders besides
// its root; a heading one.
func (m *Model) rowHeight(r row) int {
	switch {
	case r.heading != "":
		return 1
	case r.index < len(m.all) && len(m.all[r.index].Folders) > 1:
		return 3
	}
	return 2
}

func (m *Model) listHeight() int { return max(m.height-1-len(m.headLines()), 1) }

// View draws the tab in width×height.
func (m *Model) View() string {
	var b strings.Builder
	head := m.st.Title.Render("Projects")
	info := fmt.Sprintf("  %d · sort: %s", len(m.all), m.sort)
	if m.loading {
		info += "  " + m.spin.View() + " loading"
	}
	b.WriteString(head + m.st.Dim.Render(info) + "\n")
	b.WriteString(strings.Join(m.headLines(), "\n") + "\n")
	// The filter in use takes one line, the hints one or more: the list
	// gets the rest.
	m.rows.SetLines(m.listHeight())
	if m.loadErr != "" {
		b.WriteString(m.st.Error.Render(ansi.Wrap("Cannot load projects: "+m.loadErr, max(m.width, 20), "")) + "\n")
		return b.String()
	}
	if len(m.all) == 0 && !m.loading {
		b.WriteString("\nNo projects yet. Press " + m.st.Key.Render("n") + " to add a folder.\n")
		return b.String()
	}
	if m.rows.Len() == 0 && !m.loading {
		b.WriteString("\nNo project matches " + fmt.Sprintf("%q", m.filter.Value()) + ". Press esc to clear the filter.\n")
		return b.String()
	}
	home := m.host.Places.Home
	cursor := m.rows.Cursor()
	for i, r := range m.rows.Window() {
		if r.heading != "" {
			head := common.VisibleLine(r.heading)
			if i == cursor {
				head = m.st.Selected.Render(padTo("› "+head, m.width))
			}
			b.WriteString(m.st.Section.Render(truncate(head, m.width)) + "\n")
			continue
		}
		p := m.all[r.index]
		l1, l2 := m.renderProject(p, home)
		if i == cursor {
			l1 = m.st.Selected.Render(padTo("› "+l1, m.width))
		} else {
			l1 = "  " + l1
		}
		b.WriteString(truncate(l1, m.width) + "\n" + m.st.Dim.Render(truncate("    "+l2, m.width)) + "\n")
		if l3 := m.renderFolders(p, home); l3 != "" {
			b.WriteString(m.st.Dim.Render(truncate("    "+l3, m.width)) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) renderProject(p registry.Project, home string) (string, string) {
	var flags []string
	if p.Missing {
		flags = append(flags, "⚠ folder missing")
	}
	if !p.Trusted {
		flags = append(flags, "untrusted")
	}
	// A name or folder may carry control characters: shown, not acted on.
	name, tail := common.VisibleLine(p.Name), ""
	if len(flags) > 0 {
		tail = "  [" + strings.Join(flags, ", ") + "]"
	}
	// The folder gets the room the name and flags leave on the line (after
	// the two cells of "› "), shortened in its middle: its last folders are
	// what tells two projects apart.
	room := max(m.width-2-cells(name)-2-cells(tail), 12)
	l1 := name + "  " + common.ShortPath(paths.Tilde(p.Root, home), room) + tail
	file, ok := m.winners[p.ID]
	switch {
	case p.Missing:
		file = "—"
	case !ok:
		file = "…"
	case file == "":
		file = "no AGENTS.md"
	}
	mem := "no memory"
	if p.MemoryEntries > 0 {
		mem = fmt.Sprintf("memory %d (%s)", p.MemoryEntries, sizeText(p.MemoryBytes))
	}
	l2 := fmt.Sprintf("%s · %s · %s · %s", file, mem, plural(p.Sessions, "session"), openedText(p.LastOpenedAt, m.now()))
	return l1, l2
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func sizeText(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}

func openedText(ms *int64, now time.Time) string {
	if ms == nil {
		return "never opened"
	}
	d := now.Sub(time.UnixMilli(*ms))
	switch {
	case d < time.Minute:
		return "opened just now"
	case d < time.Hour:
		return fmt.Sprintf("opened %dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("opened %dh ago", int(d.Hours()))
	}
	return "opened " + time.UnixMilli(*ms).Format("2006-01-02")
}

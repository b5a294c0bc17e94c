package chat

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// The completion menu above the chat input. Typing "/" at the start of
// the input offers every slash command with its argument hint and
// description; typing "@" at the start of a word offers the project's
// files, fuzzy-matched (core/filesearch). The list narrows with every key;
// ↑/↓ move, tab or enter insert the highlighted entry, esc closes the menu
// until the input changes. Files are listed off the UI goroutine and
// cached per project; the matcher narrows its last result as the user
// types, so a key costs a fraction of a millisecond in a 100,000-file
// checkout. On send, the files named with @path are attached before the
// message as pi attaches @file arguments (filesearch.Attach).

type menuKind int

const (
	menuNone menuKind = iota
	menuCommands
	menuFiles
)

// menuSize is how many matches are kept for the menu.
const menuSize = 50

// menuKeys are the menu's keys; they are data, so help shows what the
// handler uses. Tab and Enter are Pick's two keys apart, for where they
// differ (tab says why nothing matches; enter runs a command typed in
// full).
var menuKeys = struct{ Commands, At, Up, Down, Pick, Tab, Enter, Close key.Binding }{
	Commands: key.NewBinding(key.WithKeys("/"), key.WithHelp("/command", "a menu of /compact /tree /fork /name /new /worktree /model /thinking /context /changes /undo /plan, skills and templates")),
	At:       key.NewBinding(key.WithKeys("@"), key.WithHelp("@file", "complete a project file; sent attached")),
	Up:       key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/↓", "move in the menu")),
	Down:     key.NewBinding(key.WithKeys("down", "ctrl+n")),
	Pick:     key.NewBinding(key.WithKeys("tab", "enter"), key.WithHelp("tab/enter", "complete /command or @file")),
	Tab:      key.NewBinding(key.WithKeys("tab")),
	Enter:    key.NewBinding(key.WithKeys("enter")),
	Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the menu")),
}

type menuItem struct {
	insert      string // what replaces the word being completed
	label, hint string
	desc        string
}

// completer is the menu's state; the Model holds one.
type completer struct {
	kind menuKind
	// items are the entries shown, with the highlight (ui/list). ↑/↓ move
	// it and go round; home, end and the page keys stay the input's and
	// the transcript's, as they are while the menu is closed.
	items  list.List[menuItem]
	total  int    // matches in all
	query  string // the text being completed, for messages
	hidden string // the input the menu was closed at with esc

	cache   *filesearch.Cache
	matcher *filesearch.Matcher
	loading string           // the root being listed
	walking string           // the root whose untracked files are being looked for
	tried   *filesearch.List // the tracked list last looked at for untracked files
	listErr string
	// shadowed are a pi session's commands the chat's own hide (name →
	// what pi has under it); piErr says why pi's could not be listed.
	shadowed map[string]string
	piErr    string

	// others are the matchers of the project's other folders by root,
	// othersLoading the roots being listed (completefolders.go).
	others        map[string]*filesearch.Matcher
	othersLoading map[string]bool
}

// filesMsg carries a project's file list.
type filesMsg struct {
	root   string
	list   *filesearch.List
	err    error
	walked bool // the answer of addUntracked
	other  bool // a folder other than the primary root (completefolders.go)
}

// cursorWord returns the input's text and the byte offsets of the word
// that ends at the cursor (after the last space, tab, newline, quote, "="
// or "(" before it; an @"… word starts at its "@").
func cursorWord(in interface {
	Value() string
	Cursor() (int, int)
}) (v string, start, end int) {
	v = in.Value()
	row, col := in.Cursor()
	for i := 0; i < row; i++ {
		nl := strings.IndexByte(v[end:], '\n')
		if nl < 0 {
			break
		}
		end += nl + 1
	}
	for col > 0 && end < len(v) && v[end] != '\n' {
		_, size := utf8.DecodeRuneInString(v[end:])
		end += size
		col--
	}
	start = strings.LastIndexAny(v[:end], " \t\n\"'=(") + 1
	if start >= 2 && v[start-1] == '"' && v[start-2] == '@' {
		start -= 2 // an @"quoted path" being typed
	}
	return v, start, end
}

// fileQuery returns what is typed after an "@" that starts the word at
// the cursor.
func (in *composer) fileQuery() (string, bool) {
	v, start, end := cursorWord(in.input)
	w := v[start:end]
	if !strings.HasPrefix(w, "@") {
		return "", false
	}
	return strings.TrimPrefix(w[1:], `"`), true
}

// refreshMenu recomputes the menu after the input or a list changed.
// The highlight stays on its place while the menu keeps its kind, and
// starts on the first entry when it opens.
func (in *composer) refreshMenu() tea.Cmd {
	c := &in.comp
	prev := c.kind
	items, cmd := in.menuItems()
	if !c.items.Wrap { // the zero menu: give it its keys once
		c.items = list.New[menuItem](list.KeyMap{Up: menuKeys.Up, Down: menuKeys.Down})
		c.items.Wrap = true
	}
	c.items.SetItems(items)
	if c.kind != prev {
		c.items.First()
	}
	return cmd
}

// menuItems sets the menu's kind, query and total for the input as it
// is and returns its entries.
func (in *composer) menuItems() ([]menuItem, tea.Cmd) {
	c := &in.comp
	prev := c.kind
	c.kind, c.total = menuNone, 0
	if in.sid == "" || in.project == nil {
		return nil, nil
	}
	v := in.input.Value()
	if v != c.hidden {
		c.hidden = ""
	} else {
		return nil, nil
	}
	var items []menuItem
	if typed, ok := in.typedName(); ok {
		c.kind, c.query = menuCommands, typed
		for _, cmd := range rankCommands(in.menuCommands(), typed) {
			items = append(items, menuItem{insert: "/" + cmd.Name + " ", label: "/" + cmd.Name, hint: cmd.ArgumentHint, desc: cmd.Description})
		}
		c.total = len(items)
		return items, nil
	}
	q, ok := in.fileQuery()
	if !ok {
		return nil, nil
	}
	c.kind, c.query = menuFiles, q
	var cmd tea.Cmd
	if prev != menuFiles {
		cmd = in.loadFiles() // cheap when the cached list is fresh
	}
	if c.matcher == nil || c.matcher.List().Root != in.project.Root {
		return nil, cmd
	}
	top, n := filesearch.TopAcross(in.fileSources(), q, menuSize)
	for _, t := range top {
		items = append(items, menuItem{insert: "@" + quotePath(t.Path) + " ", label: t.Path})
	}
	c.total = n
	return items, cmd
}

// quotePath quotes a path holding a space, as pi's completion does.
func quotePath(p string) string {
	if strings.ContainsAny(p, " \t") {
		return `"` + p + `"`
	}
	return p
}

// loadFiles lists the project's files off the UI goroutine.
func (in *composer) loadFiles() tea.Cmd {
	c := &in.comp
	root := in.project.Root
	if c.loading == root {
		return nil
	}
	if c.cache == nil {
		c.cache = filesearch.NewCache(filesearch.DefaultLimits(), filesearch.SystemGit(in.env))
	}
	c.loading = root
	cache, ctx := c.cache, in.ctx
	return tea.Batch(func() tea.Msg {
		l, err := cache.Get(ctx, root)
		return filesMsg{root: root, list: l, err: err}
	}, in.loadOtherFiles())
}

// filesLoaded takes a list in and shows its matches.
func (in *composer) filesLoaded(msg filesMsg) tea.Cmd {
	c := &in.comp
	if msg.other {
		return in.otherLoaded(msg)
	}
	if c.loading == msg.root {
		c.loading = ""
	}
	if in.project == nil || msg.root != in.project.Root {
		return nil
	}
	c.listErr = ""
	if msg.err != nil {
		c.listErr = msg.err.Error()
		return in.refreshMenu()
	}
	if c.matcher == nil || c.matcher.List() != msg.list {
		c.matcher = filesearch.NewMatcher(msg.list)
	}
	if msg.walked && c.walking == msg.root {
		c.walking = ""
	}
	return tea.Batch(in.refreshMenu(), in.addUntracked(msg.list))
}

// addUntracked looks, off the UI goroutine, for the files git does not
// track (yet) and does not ignore; the tracked ones are offered meanwhile.
func (in *composer) addUntracked(l *filesearch.List) tea.Cmd {
	c := &in.comp
	if !l.FromIndex || l.Untracked || c.walking == l.Root || c.tried == l {
		return nil
	}
	c.walking, c.tried = l.Root, l
	cache, ctx := c.cache, in.ctx
	return func() tea.Msg {
		nl, err := cache.AddUntracked(ctx, l)
		if err != nil {
			return filesMsg{root: l.Root, list: l, walked: true} // the tracked files stay offered
		}
		return filesMsg{root: l.Root, list: nl, walked: true}
	}
}

// menuKey handles a key while the menu is open; ok is false for keys it
// leaves to the input.
func (in *composer) menuKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	c := &in.comp
	if c.kind == menuNone {
		return nil, false
	}
	switch {
	case key.Matches(msg, menuKeys.Close):
		c.hidden = in.input.Value()
		c.kind = menuNone
		c.items.SetItems(nil)
		return nil, true
	case c.items.Len() == 0:
		if key.Matches(msg, menuKeys.Tab) {
			if c.kind == menuCommands {
				return common.Notice("no command matches %q", "/"+common.VisibleLine(c.query)), true
			}
			if c.matcher == nil || c.matcher.List().Root != in.project.Root {
				return common.Notice("still listing the project's files"), true
			}
			return common.Notice("no file matches %q", common.VisibleLine(c.query)), true
		}
		return nil, false
	case c.items.Update(msg):
		return nil, true
	case key.Matches(msg, menuKeys.Pick):
		it, _ := c.items.Selected()
		if c.kind == menuCommands && key.Matches(msg, menuKeys.Enter) && in.input.Value() == it.label {
			c.kind = menuNone
			return nil, false // the command is typed in full: enter runs it
		}
		in.completeWord(it.insert)
		return in.refreshMenu(), true
	}
	return nil, false
}

// completeWord replaces the word being completed (for a command, the
// whole input) with text, the cursor after it.
func (in *composer) completeWord(text string) {
	if in.comp.kind == menuCommands {
		in.input.SetValue(text)
	} else {
		// One edit (ctrl+z undoes it), the cursor right after the path.
		v, start, end := cursorWord(in.input)
		before := v[:start] + text
		in.input.Replace(before + v[end:]) // the input's own text, markers and all
		in.input.SetCursor(strings.Count(before, "\n"), utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]))
	}
	in.input.fit(in.width, in.height)
}

// menuLines draws the menu in at most limit entries (the chat gives a
// third of the transcript's height, menuLimit), scrolled to keep the
// highlighted entry in view.
func (in *composer) menuLines(limit int) []string {
	c := &in.comp
	if c.kind == menuNone {
		return nil
	}
	st := in.ui
	w := max(in.width, 10)
	line := func(s string) string { return ansi.Truncate(s, w, "…") }
	var out []string
	c.items.SetLines(limit)
	sel := c.items.Cursor()
	for i, it := range c.items.Window() {
		text := "  " + common.VisibleLine(it.label)
		if c.kind == menuCommands {
			name := common.VisibleLine(it.label)
			if it.hint != "" {
				name += " " + common.VisibleLine(it.hint)
			}
			text = fmt.Sprintf("  %-24s %s", name, st.Dim.Render(common.VisibleLine(it.desc)))
		}
		if i == sel {
			// Marked as the lists mark their row, so it shows without
			// colour too (NO_COLOR).
			out = append(out, st.Selected.Render(line("› "+ansi.Strip(text)[2:])))
		} else {
			out = append(out, line(text))
		}
	}
	if hidden := c.items.Len() - limit; hidden > 0 {
		out = append(out, st.Dim.Render(line(fmt.Sprintf("  %d more: ↑/↓, or type to narrow", hidden))))
	}
	out = append(out, in.menuFooter()...)
	return out
}

// menuFooter says how many entries match and where files came from. Its
// lines are sentences (a warning's cause, the keys): they wrap, indented
// under the menu, and are never cut.
func (in *composer) menuFooter() []string {
	c := &in.comp
	st := in.ui
	w := max(in.width, 10)
	var out []string
	say := func(render func(...string) string, text string) {
		for _, l := range strings.Split(ansi.Wrap(text, w-2, ""), "\n") {
			out = append(out, render("  "+l))
		}
	}
	dim := func(f string, a ...any) { say(st.Dim.Render, fmt.Sprintf(f, a...)) }
	if c.kind == menuCommands {
		if c.items.Len() == 0 {
			dim("no command matches %q (esc closes)", "/"+common.VisibleLine(c.query))
		}
		if len(in.cmdWarn) > 0 {
			say(st.Warn.Render, fmt.Sprintf("! %d skill or template file(s) skipped: %s", len(in.cmdWarn), common.VisibleLine(in.cmdWarn[0])))
		}
		if c.piErr != "" {
			say(st.Warn.Render, "! "+common.VisibleLine(c.piErr)+"; pi-tui's own list instead")
		}
		return out
	}
	switch {
	case c.listErr != "":
		say(st.Warn.Render, "! cannot list the project's files: "+common.VisibleLine(c.listErr))
		return out
	case c.matcher == nil || c.matcher.List().Root != in.project.Root:
		dim("listing the project's files…")
		return out
	}
	l := c.matcher.List()
	src := "the folder, minus .gitignore"
	switch {
	case l.Untracked:
		src = "git: tracked, and untracked not ignored"
	case l.FromIndex && c.walking == l.Root:
		src = "the git index (looking for untracked files…)"
	case l.FromIndex:
		src = "the git index (tracked files)"
	}
	if c.items.Len() == 0 {
		dim("no file matches %q among %s from %s (esc closes)", common.VisibleLine(c.query), common.Group(in.fileCount()), src)
	} else {
		verb := "match"
		if c.total == 1 {
			verb = "matches"
		}
		dim("%s of %s %s · from %s · tab/enter inserts, esc closes", common.Group(c.total), common.Plural(in.fileCount(), "file"), verb, src)
	}
	if l.Truncated {
		say(st.Warn.Render, "! the list stopped at "+common.Plural(len(l.Paths), "file"))
	}
	if l.Warning != "" {
		say(st.Warn.Render, "! "+common.VisibleLine(l.Warning))
	}
	return out
}

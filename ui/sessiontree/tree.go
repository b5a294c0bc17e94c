// Package sessiontree is the page of every branch of a session (pi's
// /tree, and /fork): each user message, answer, tool call and record,
// named as pi's tree names them, indented where branches part, with
// pi's labels, the current branch marked, searchable with /. The chat
// stacks it over itself as a layer and is told which entry was chosen.
package sessiontree

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// treeKeys are the tree page's keys: one table for handling and help.
type treeKeys struct {
	// Nav moves the cursor (ui/list): ↑/k ↓/j pgup pgdn home/g end/G.
	Nav                       list.KeyMap
	Jump, Fork, Search, Close key.Binding
	// While the search has the keys: esc clears it (the partner of /),
	// enter acts on the selected match (Jump's key) and the arrows and
	// page keys move through the matches; letters, home and end edit the
	// query.
	ClearSearch key.Binding
	SearchNav   list.KeyMap
}

func newTreeKeys() treeKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	bare := func(keys ...string) key.Binding { return key.NewBinding(key.WithKeys(keys...)) }
	return treeKeys{
		Nav:         list.DefaultKeyMap(),
		Jump:        b("enter", "continue from here", "enter"),
		Fork:        b("f", "fork: new session from here", "f"),
		Search:      b("/", "search", "/"),
		Close:       b("esc", "close", "esc", "q"),
		ClearSearch: bare("esc"),
		SearchNav:   list.KeyMap{Up: bare("up"), Down: bare("down"), PageUp: bare("pgup"), PageDown: bare("pgdown")},
	}
}

// Describe says what an entry holds: line, its row (one line, shown as
// text), and search, the text a search looks in. byID finds another
// entry of the tree (a tool result's call is in an answer above it).
type Describe func(te sessions.TreeEntry, byID func(string) (sessions.TreeEntry, bool)) (line, search string)

// treeRow is one line of the tree: an entry, how deep it is drawn and what
// it says.
type treeRow struct {
	e      sessions.TreeEntry
	depth  int
	leaf   bool // the current leaf
	branch bool // a branch starts here (a sibling follows)
	// text and search are what the row says and what a search looks in
	// (lower case, its label too): filled when first needed, so a long
	// session's rows are not all decoded to open the page.
	text, search string
	described    bool
}

// Page shows every branch of a session (pi's /tree): each user
// message, answer, tool call and record, indented where branches part,
// with labels; the current branch is marked. enter continues from the
// chosen entry; f forks a new session from it; / searches.
type Page struct {
	common.PageLayer
	ui      *common.UI
	forking bool // /fork: enter forks
	keys    treeKeys
	// rows are the tree's lines in order, with the cursor over them;
	// while searching, the filter shows the matches only.
	rows list.List[*treeRow]
	// byID finds a row by its entry's id (see row).
	byID map[string]*treeRow
	// searching is whether / is open; query is what was typed.
	searching bool
	query     textinput.Model
	// reading is set while every row is described off the UI goroutine
	// for the search (a long session's thousands of entries take a
	// while); described once that is done.
	reading, described bool
	// picked is the entry last under the cursor: a search that matched
	// nothing for a while comes back to it (or its nearest ancestor).
	picked *treeRow
	// describe says what an entry holds (the transcript decodes it);
	// jump and fork act on the chosen entry.
	describe   Describe
	jump, fork func(sessions.TreeEntry, string) tea.Cmd
}

// New shows tree with leaf, the entry the session is at, selected;
// forking is /fork, where enter forks too.
func New(ui *common.UI, forking bool, tree []sessions.TreeEntry, leaf string, describe Describe, jump, fork func(sessions.TreeEntry, string) tea.Cmd) *Page {
	p := &Page{ui: ui, forking: forking, keys: newTreeKeys(), describe: describe, jump: jump, fork: fork}
	p.rows = list.New[*treeRow](p.keys.Nav)
	p.rows.SetItems(treeRows(tree, leaf))
	p.rows.Select(func(r *treeRow) bool { return r.leaf })
	return p
}

// treeRows orders the tree depth first (children in file order) and
// indents a child one step where its parent has more than one child, so a
// long conversation without branches stays flat.
func treeRows(tree []sessions.TreeEntry, leaf string) []*treeRow {
	children := map[string][]int{}
	var tops []int
	for i, te := range tree {
		if te.Parent == "" {
			tops = append(tops, i)
		} else {
			children[te.Parent] = append(children[te.Parent], i)
		}
	}
	type frame struct{ i, depth int }
	var stack []frame
	push := func(list []int, depth int) {
		indent := 0
		if len(list) > 1 {
			indent = 1
		}
		for k := len(list) - 1; k >= 0; k-- {
			stack = append(stack, frame{list[k], depth + indent})
		}
	}
	push(tops, -1)
	store := make([]treeRow, 0, len(tree)) // one allocation for every row
	rows := make([]*treeRow, 0, len(tree))
	seen := make([]bool, len(tree))
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[f.i] {
			continue
		}
		seen[f.i] = true
		te := tree[f.i]
		kids := children[te.ID]
		store = append(store, treeRow{e: te, depth: max(f.depth, 0), leaf: te.ID == leaf, branch: len(kids) > 1})
		rows = append(rows, &store[len(store)-1])
		push(kids, max(f.depth, 0))
	}
	return rows
}

// entryCount counts entries ("1 entry", "2 entries").
func entryCount(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return common.Group(n) + " entries"
}

// row finds a row by its entry's id. The index is made on first use (a
// tool result's row names its call from the answer above it; a search
// walks up from the selected entry), not to open the page.
func (p *Page) row(id string) *treeRow {
	if p.byID == nil {
		rows := p.rows.Items()
		p.byID = make(map[string]*treeRow, len(rows))
		for _, r := range rows {
			p.byID[r.e.ID] = r
		}
	}
	return p.byID[id]
}

// entry finds an entry of the tree by id, for describe.
func (p *Page) entry(id string) (sessions.TreeEntry, bool) {
	if r := p.row(id); r != nil {
		return r.e, true
	}
	return sessions.TreeEntry{}, false
}

// describeRow fills r's text and search the first time they are needed.
func (p *Page) describeRow(r *treeRow) {
	if r.described {
		return
	}
	r.described = true
	r.text, r.search = p.describe(r.e, p.entry)
	r.search = strings.ToLower(r.e.Label + " " + r.search)
}

// line is what row r says: its label first, as pi's tree puts it, then
// what it holds; both shown as text.
func (p *Page) line(r *treeRow) string {
	p.describeRow(r)
	if r.e.Label != "" {
		return "[" + common.VisibleLine(r.e.Label) + "] " + r.text
	}
	return r.text
}

// matches reports whether r holds every word of the query, in any order
// and case, as pi's tree search does. While the rows are read for the
// search, a row not described yet does not match (it is not decoded
// here, on the UI goroutine).
func (p *Page) matches(r *treeRow) bool {
	if !r.described && p.reading {
		return false
	}
	p.describeRow(r)
	for _, w := range strings.Fields(strings.ToLower(p.query.Value())) {
		if !strings.Contains(r.search, w) {
			return false
		}
	}
	return true
}

// startSearch opens the query line under the title and has every row
// described for it.
func (p *Page) startSearch() tea.Cmd {
	p.searching = true
	p.query = textinput.New()
	p.query.Prompt = "/ "
	p.query.Placeholder = "words in the entries and their labels"
	p.query.CharLimit = 200
	p.query.Focus()
	p.rows.Keys = p.keys.SearchNav
	return p.describeAll()
}

// describedMsg is what every row of page says, for its search.
type describedMsg struct {
	page            *Page
	lines, searches []string
}

// describeAll describes every row in a command: decoding a long
// session's entries takes longer than a keystroke may.
func (p *Page) describeAll() tea.Cmd {
	if p.described || p.reading {
		return nil
	}
	p.reading = true
	rows := p.rows.Items()
	es := make([]sessions.TreeEntry, len(rows))
	for i, r := range rows {
		es[i] = r.e
	}
	p.row("") // the index, made here: the command only reads it
	byID, describe := p.byID, p.describe
	return func() tea.Msg {
		entry := func(id string) (sessions.TreeEntry, bool) {
			if r := byID[id]; r != nil {
				return r.e, true // e is never written after New
			}
			return sessions.TreeEntry{}, false
		}
		msg := describedMsg{page: p, lines: make([]string, len(es)), searches: make([]string, len(es))}
		for i, te := range es {
			msg.lines[i], msg.searches[i] = describe(te, entry)
		}
		return msg
	}
}

// applyDescribed fills in the rows' descriptions and searches again.
func (p *Page) applyDescribed(msg describedMsg) {
	for i, r := range p.rows.Items() {
		if !r.described && i < len(msg.lines) {
			r.described, r.text = true, msg.lines[i]
			r.search = strings.ToLower(r.e.Label + " " + msg.searches[i])
		}
	}
	p.reading, p.described = false, true
	if p.searching {
		p.refilter()
	}
}

// stopSearch clears the search: every row shows again, the cursor where
// it was among the matches.
func (p *Page) stopSearch() {
	if r, ok := p.rows.Selected(); ok {
		p.picked = r
	}
	p.searching = false
	p.rows.Keys = p.keys.Nav
	p.rows.SetFilter(nil)
	if p.picked != nil {
		p.rows.Select(func(r *treeRow) bool { return r == p.picked })
	}
}

// refilter shows the rows the query matches. The cursor stays on its
// entry while it matches, else goes to its nearest ancestor that does,
// else to the last match, as pi's tree does.
func (p *Page) refilter() {
	if r, ok := p.rows.Selected(); ok {
		p.picked = r
	}
	before := p.picked
	p.rows.SetFilter(p.matches)
	if now, ok := p.rows.Selected(); !ok || before == nil || now == before {
		return
	}
	for r, steps := p.row(before.e.Parent), 0; r != nil && steps < len(p.byID); r, steps = p.row(r.e.Parent), steps+1 {
		if p.rows.Select(func(x *treeRow) bool { return x == r }) {
			return
		}
	}
	p.rows.Last()
}

func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	if d, ok := msg.(describedMsg); ok && d.page == p {
		p.applyDescribed(d)
		return p, nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	k := p.keys
	if p.searching {
		switch {
		case key.Matches(km, k.ClearSearch):
			p.stopSearch()
		case key.Matches(km, k.Jump):
			return p, p.act(false)
		case p.rows.Update(km):
		default:
			before := p.query.Value()
			var cmd tea.Cmd
			p.query, cmd = p.query.Update(km)
			if p.query.Value() != before {
				p.refilter()
			}
			return p, cmd
		}
		return p, nil
	}
	switch {
	case key.Matches(km, k.Close):
		return p, p.ui.Close(p)
	case p.rows.Update(km):
	case key.Matches(km, k.Search):
		return p, p.startSearch()
	case key.Matches(km, k.Jump):
		return p, p.act(false)
	case key.Matches(km, k.Fork):
		return p, p.act(true)
	}
	return p, nil
}

// act closes the page and continues from (or, fork, forks from) the
// selected entry.
func (p *Page) act(fork bool) tea.Cmd {
	r, ok := p.rows.Selected()
	if !ok {
		return nil
	}
	p.describeRow(r)
	do := p.jump
	if fork {
		do = p.fork
	}
	return tea.Batch(p.ui.Close(p), do(r.e, r.text))
}

func (p *Page) View(w, h int) string {
	st := p.ui
	title, hint := "Tree · every branch", "enter continue · f fork · / search · esc close"
	if p.forking {
		title, hint = "Fork · a new session from which entry?", "enter fork from here · / search · esc close"
	}
	if p.searching {
		hint = "type words to narrow · enter continue from here · esc clear the search"
		if p.forking {
			hint = "type words to narrow · enter fork from here · esc clear the search"
		}
	}
	// The header and the count wrap rather than lose their end.
	var head []string
	if ansi.StringWidth(title+"  "+hint) <= w {
		head = []string{st.Title.Render(title) + st.Dim.Render("  "+hint)}
	} else {
		head = []string{st.Title.Render(common.Wrap(title, w))}
		for _, l := range strings.Split(common.Wrap(hint, max(w-2, 10)), "\n") {
			head = append(head, st.Dim.Render("  "+l))
		}
	}
	if p.searching {
		p.query.Width = max(w-4, 10)
		head = append(head, p.query.View())
	}
	count := fmt.Sprintf("%d of %s", p.rows.Cursor()+1, entryCount(p.rows.Len()))
	switch {
	case p.searching && p.reading:
		count = fmt.Sprintf("reading the %s to search them…", entryCount(len(p.rows.Items())))
	case p.searching:
		count = fmt.Sprintf("%d of %d matching, of %s", p.rows.Cursor()+1, p.rows.Len(), entryCount(len(p.rows.Items())))
	}
	foot := strings.Split(common.Wrap(count+" · ▶ where the session is now · │ its branch", max(w, 10)), "\n")
	p.rows.SetLines(h - len(head) - len(foot))
	var b strings.Builder
	b.WriteString(strings.Join(head, "\n") + "\n")
	cursor := p.rows.Cursor()
	if p.rows.Len() == 0 && !p.reading {
		b.WriteString(st.Dim.Render("  no entry holds every word of the search") + "\n")
	}
	for i, r := range p.rows.Window() {
		mark := "  "
		switch {
		case r.leaf:
			mark = "▶ "
		case r.e.OnPath:
			mark = "│ "
		}
		line := strings.Repeat("  ", min(r.depth, 20)) + mark
		if r.branch {
			line += "┬ "
		}
		line = ansi.Truncate(line+p.line(r), max(w-2, 10), "…")
		switch {
		case i == cursor:
			b.WriteString(st.Selected.Render("› "+line) + "\n")
		case r.e.OnPath:
			b.WriteString("  " + line + "\n")
		default:
			b.WriteString(st.Dim.Render("  "+line) + "\n")
		}
	}
	b.WriteString(st.Dim.Render(strings.Join(foot, "\n")))
	return b.String()
}

func (p *Page) Title() string { return "Tree" }
func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Jump, k.Fork, k.Search, k.Close}, k.Nav.Bindings()}
}

// CapturesText is true while searching: letters (q, ?) and the
// program's keys that typing takes go to the query.
func (p *Page) CapturesText() bool { return p.searching }

// Package sessiontree is the page of every branch of a session (pi's
// /tree, and /fork): each user message, answer and tool result, indented
// where branches part, the current branch marked. The chat stacks it over
// itself as a layer and is told which entry was chosen.
package sessiontree

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// treeKeys are the tree page's keys: one table for handling and help.
type treeKeys struct {
	// Nav moves the cursor (ui/list): ↑/k ↓/j pgup pgdn home/g end/G.
	Nav               list.KeyMap
	Jump, Fork, Close key.Binding
}

func newTreeKeys() treeKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return treeKeys{
		Nav:   list.DefaultKeyMap(),
		Jump:  b("enter", "continue from here", "enter"),
		Fork:  b("f", "fork: new session from here", "f"),
		Close: b("esc", "close", "esc", "q"),
	}
}

// treeRow is one line of the tree: an entry, how deep it is drawn and what
// it says.
type treeRow struct {
	e      sessions.TreeEntry
	depth  int
	text   string // the message, one line: filled when first drawn (a long session's rows are not all decoded)
	leaf   bool   // the current leaf
	branch bool   // a branch starts here (a sibling follows)
}

// Page shows every branch of a session (pi's /tree): each user
// message, answer and tool result, indented where branches part, with
// labels; the current branch is marked. enter continues from the chosen
// entry; f forks a new session from it.
type Page struct {
	common.PageLayer
	ui      *common.UI
	forking bool // /fork: enter forks
	keys    treeKeys
	// rows are the tree's lines in order, with the cursor over them; no
	// filter, so a row's index in the window is its index in Items.
	rows list.List[treeRow]
	// describe says in one line what an entry holds (the transcript
	// decodes it); jump and fork act on the chosen entry.
	describe   func(sessions.Entry) string
	jump, fork func(sessions.TreeEntry, string) tea.Cmd
}

// New shows tree with leaf, the entry the session is at, selected;
// forking is /fork, where enter forks too.
func New(ui *common.UI, forking bool, tree []sessions.TreeEntry, leaf string, describe func(sessions.Entry) string, jump, fork func(sessions.TreeEntry, string) tea.Cmd) *Page {
	p := &Page{ui: ui, forking: forking, keys: newTreeKeys(), describe: describe, jump: jump, fork: fork}
	p.rows = list.New[treeRow](p.keys.Nav)
	p.rows.SetItems(treeRows(tree, leaf))
	p.rows.Select(func(r treeRow) bool { return r.leaf })
	return p
}

// treeRows orders the tree depth first (children in file order) and
// indents a child one step where its parent has more than one child, so a
// long conversation without branches stays flat.
func treeRows(tree []sessions.TreeEntry, leaf string) []treeRow {
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
	rows := make([]treeRow, 0, len(tree))
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
		rows = append(rows, treeRow{e: te, depth: max(f.depth, 0), leaf: te.ID == leaf, branch: len(kids) > 1})
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

// text is row i's line, decoded the first time it is needed.
func (p *Page) text(i int) string {
	r := &p.rows.Items()[i]
	if r.text == "" {
		r.text = p.describe(r.e.Entry)
	}
	return r.text
}

func (p *Page) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	k := p.keys
	switch {
	case key.Matches(km, k.Close):
		return p, p.ui.Close(p)
	case p.rows.Update(km):
	case key.Matches(km, k.Jump), key.Matches(km, k.Fork):
		r, ok := p.rows.Selected()
		if !ok {
			return p, nil
		}
		text := p.text(p.rows.Cursor())
		act := p.jump
		if key.Matches(km, k.Fork) {
			act = p.fork
		}
		return p, tea.Batch(p.ui.Close(p), act(r.e, text))
	}
	return p, nil
}

func (p *Page) View(w, h int) string {
	st := p.ui
	var b strings.Builder
	title, hint := "Tree · every branch", "  enter continue from here · f fork · esc close"
	if p.forking {
		title, hint = "Fork · a new session from which entry?", "  enter fork from here · esc close"
	}
	b.WriteString(st.Title.Render(title) + st.Dim.Render(hint) + "\n")
	p.rows.SetLines(h - 2) // under the title, above the count
	cursor := p.rows.Cursor()
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
		line += common.VisibleLine(p.text(i))
		if r.e.Label != "" {
			line += "  [" + common.VisibleLine(r.e.Label) + "]"
		}
		line = ansi.Truncate(line, max(w-2, 10), "…")
		switch {
		case i == cursor:
			b.WriteString(st.Selected.Render("› "+line) + "\n")
		case r.e.OnPath:
			b.WriteString("  " + line + "\n")
		default:
			b.WriteString(st.Dim.Render("  "+line) + "\n")
		}
	}
	b.WriteString(st.Dim.Render(fmt.Sprintf("%d of %s · ▶ where the session is now · │ its branch", cursor+1, entryCount(p.rows.Len()))))
	return b.String()
}

func (p *Page) Title() string { return "Tree" }
func (p *Page) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Jump, k.Fork, k.Close}, k.Nav.Bindings()}
}

package reviewview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// maxSayLines bounds the lines a result or refusal takes under the list.
const maxSayLines = 4

// View implements common.Layer: the title, the list of changes under
// their turns (columns: number, state, status, +N −M, tool, path), the
// last action's result and the keys.
func (p *Page) View(w, h int) string {
	st := p.d.UI
	w = max(w, 20)
	var b strings.Builder
	head := st.Title.Render("Review · the session's file changes")
	if n := p.changeCount(); n > 0 {
		head += st.Dim.Render("  " + common.Plural(n, "change") + " · f1 help")
	}
	b.WriteString(ansi.Truncate(head, w, "…") + "\n")
	switch {
	case p.err != "":
		b.WriteString(st.Error.Render(ansi.Wrap(common.VisibleLine(p.err), w, "")))
		return b.String()
	case !p.loaded:
		b.WriteString(st.Dim.Render("loading…"))
		return b.String()
	case p.list.Len() == 0:
		b.WriteString(st.Dim.Render(ansi.Wrap("No file changes recorded in this session yet: each tool call that changes files (write, edit, bash, an extension's tool) adds its files here. Not recorded: .git and the files git ignores.", w, "")))
		return b.String()
	}
	b.WriteString(st.Dim.Render(ansi.Truncate("Not recorded: .git and the files git ignores.", w, "…")) + "\n")
	say := p.sayLines(w)
	k := p.keys
	keys := []string{common.Hints(k.Diff), common.Hints(k.Undo), common.Hints(k.Redo), common.Hints(k.UndoFrom)}
	if p.refused != nil {
		keys = append(keys, common.Hints(k.Force))
	}
	keys = append(keys, common.Hints(k.Close))
	// The keys wrap between two of them; the list gets what is left.
	keyLines := common.HintLines("", keys, w)
	p.list.SetLines(max(h-2-len(say)-len(keyLines), 1))
	cols := p.columns()
	cur := p.list.Cursor()
	for i, r := range p.list.Window() {
		if r.heading != "" {
			b.WriteString(st.Section.Render(ansi.Truncate("── "+common.VisibleLine(r.heading), w, "…")) + "\n")
			continue
		}
		line := cols.line(r.c, w-2)
		switch {
		case i == cur:
			b.WriteString(st.Selected.Render("› "+line) + "\n")
		case r.c.State != checkpoints.StateActive:
			b.WriteString(st.Dim.Render("  "+line) + "\n")
		default:
			b.WriteString("  " + line + "\n")
		}
	}
	for _, l := range say {
		b.WriteString(l + "\n")
	}
	for i, l := range keyLines {
		keyLines[i] = st.Dim.Render(l)
	}
	b.WriteString(strings.Join(keyLines, "\n"))
	return b.String()
}

// sayLines is the last action's sentence, wrapped, at most maxSayLines.
func (p *Page) sayLines(w int) []string {
	if p.say == "" {
		return nil
	}
	st := p.d.UI
	style := st.OK
	if p.bad {
		style = st.Error
	}
	lines := strings.Split(ansi.Wrap(common.VisibleLine(p.say), w, ""), "\n")
	if len(lines) > maxSayLines {
		lines = append(lines[:maxSayLines-1], "…")
	}
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

func (p *Page) changeCount() int {
	n := 0
	for _, r := range p.list.Items() {
		if r.heading == "" {
			n++
		}
	}
	return n
}

// columns are the widths of a change line's columns, over every change
// listed, so the columns line up as the list scrolls.
type columns struct{ n, count, tool int }

func (p *Page) columns() columns {
	c := columns{n: 2, count: 5, tool: 4}
	for _, r := range p.list.Items() {
		if r.heading != "" {
			continue
		}
		c.n = max(c.n, len(fmt.Sprint(r.c.N)))
		c.count = max(c.count, ansi.StringWidth(transcript.CountText(r.c.Added, r.c.Removed, r.c.Binary)))
		c.tool = min(max(c.tool, ansi.StringWidth(common.VisibleLine(r.c.Tool))), 12)
	}
	return c
}

// line is one change at width w: its number, state, status letter,
// size, tool and path, the path shortened from its start to fit, and
// whether it can be undone at all.
func (c columns) line(ch checkpoints.Change, w int) string {
	tool := ansi.Truncate(common.VisibleLine(ch.Tool), c.tool, "…")
	count := transcript.CountText(ch.Added, ch.Removed, ch.Binary)
	lead := fmt.Sprintf("%*d  %-6s  %s  %-*s  %-*s  ", c.n, ch.N, ch.State, checkpoints.Letter(ch.Status), c.count, count, c.tool, tool)
	tail := ""
	if !ch.Kept {
		tail = "  · not undoable"
	}
	room := w - ansi.StringWidth(lead) - ansi.StringWidth(tail)
	return ansi.Truncate(lead+transcript.ShortPath(ch.Path, max(room, 8))+tail, max(w, 10), "…")
}

package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Tool output in the transcript. A running bash call shows its elapsed
// time and, under its line, the last lines of its output as it arrives;
// they stay once it ends (then they are the result's). ctrl+o expands one
// call to its input and whole output and collapses it again: the selected
// call, or the latest when none is selected; alt+↑/alt+↓ move the
// selection between calls without touching the input (ADR 0027).
const (
	tailLines = 5         // output lines kept under a bash call's line
	liveKeep  = 64 * 1024 // bytes of a running call's output the view keeps
	toolTick  = time.Second
)

// toolTickMsg redraws running calls' elapsed time.
type toolTickMsg struct{}

// Update handles the transcript's own messages (the tick that redraws
// running calls); ok is false for others.
func (m *Model) Update(msg tea.Msg) (tea.Cmd, bool) {
	if _, ok := msg.(toolTickMsg); ok {
		m.ticking = false
		for _, it := range m.calls {
			it.cacheKey = ""
		}
		return m.tickTools(), true
	}
	return nil, false
}

// tickTools keeps one tick going while any call runs.
func (m *Model) tickTools() tea.Cmd {
	if m.ticking || len(m.calls) == 0 {
		return nil
	}
	m.ticking = true
	return tea.Tick(toolTick, func(time.Time) tea.Msg { return toolTickMsg{} })
}

// toolStarted times a call that began and starts the tick.
func (m *Model) toolStarted(it *item) tea.Cmd {
	it.started = m.ui.Now()
	return m.tickTools()
}

// ToolOutput adds a running call's new output, keeping the newest
// liveKeep bytes from a whole line on; skipped bytes were dropped before
// delta.
func (m *Model) ToolOutput(callID, delta string, skipped int64) {
	it := m.calls[callID]
	if it == nil {
		return
	}
	it.skipped += skipped
	if skipped > 0 {
		// Output was dropped before this chunk: what is kept must not
		// join two lines that were far apart.
		it.skipped += int64(len(it.output))
		it.output = ""
	}
	it.output += delta
	if over := len(it.output) - liveKeep; over > 0 {
		cut := over
		if i := strings.IndexByte(it.output[over:], '\n'); i >= 0 {
			cut += i + 1
		}
		it.skipped += int64(cut)
		it.output = it.output[cut:]
	}
	it.cacheKey = ""
}

// toolItems returns the indexes of the transcript's tool calls.
func (m *Model) toolItems() []int {
	var out []int
	for i, it := range m.items {
		if it.kind == kindTool {
			out = append(out, i)
		}
	}
	return out
}

// selected returns the index of the call ctrl+o acts on: the selected
// one, else the latest (-1: there is none).
func (m *Model) selected() int {
	tools := m.toolItems()
	for _, i := range tools {
		if m.items[i] == m.sel {
			return i
		}
	}
	m.sel = nil // gone with a reread transcript
	if len(tools) == 0 {
		return -1
	}
	return tools[len(tools)-1]
}

// target is the call ctrl+o acts on, as selected does, without its
// allocation: every frame asks, for the cards' hints.
func (m *Model) target() *item {
	var latest *item
	for i := len(m.items) - 1; i >= 0; i-- {
		it := m.items[i]
		if it.kind != kindTool {
			continue
		}
		if it == m.sel {
			return it
		}
		if latest == nil {
			latest = it
			if m.sel == nil {
				return it
			}
		}
	}
	return latest
}

// SelectTool moves the selection to the call before (back) or after the
// selected one, and scrolls a view of h lines to it. Going back from no
// selection selects the latest call; going on past the latest ends the
// selection.
func (m *Model) SelectTool(back bool, h int) tea.Cmd {
	tools := m.toolItems()
	if len(tools) == 0 {
		return common.Notice("no tool calls in this session yet")
	}
	pos := len(tools) // no selection: past the latest
	for p, i := range tools {
		if m.items[i] == m.sel {
			pos = p
		}
	}
	switch {
	case back && m.sel == nil:
		pos = len(tools) - 1
	case back:
		pos = max(pos-1, 0)
	default:
		pos++
	}
	m.mark(nil)
	if pos >= len(tools) {
		return nil
	}
	m.mark(m.items[tools[pos]])
	m.reveal(tools[pos], h)
	return nil
}

// mark makes it the selected call (nil: none), redrawing both.
func (m *Model) mark(it *item) {
	if m.sel != nil {
		m.sel.marked, m.sel.cacheKey = false, ""
	}
	m.sel = it
	if it != nil {
		it.marked, it.cacheKey = true, ""
	}
}

// ToggleTool expands or collapses the selected call (or the latest) and
// scrolls a view of h lines to it.
func (m *Model) ToggleTool(h int) tea.Cmd {
	i := m.selected()
	if i < 0 {
		return common.Notice("no tool calls in this session yet")
	}
	it := m.items[i]
	it.decode()
	it.expanded, it.cacheKey = !it.expanded, ""
	m.reveal(i, h)
	return nil
}

// reveal scrolls a view of h lines so item i is in it, its first line
// first when it is taller than the view.
func (m *Model) reveal(i, h int) {
	opts := m.drawOpts()
	below := 0
	for j := len(m.items) - 1; j > i; j-- {
		below += len(m.items[j].render(m.ui, m.width, opts))
	}
	n := len(m.items[i].render(m.ui, m.width, opts))
	if below < m.bottom || n > h {
		m.bottom = below + max(n-h, 0)
	} else if below+n > m.bottom+h {
		m.bottom = below + n - h
	}
}

// drawOpts are the toggles items are drawn with.
func (m *Model) drawOpts() viewOpts {
	return viewOpts{params: m.params, thinking: m.thinking, markdown: m.markdown, files: m.files, hints: m.hints, target: m.target()}
}

// toolBody is what a call's output shows: while it runs, what arrived so
// far; once it ended, its result as the model got it.
func (it *item) toolBody() string {
	if it.status == "running" || it.result == "" {
		return it.output
	}
	return it.result
}

// toolCacheKey adds what a tool item's drawing depends on beyond its
// text: the selection, the expansion and, while it runs, the second.
func (it *item) toolCacheKey(st *common.UI, opts viewOpts) string {
	if it.kind != kindTool {
		return ""
	}
	k := fmt.Sprintf("|%v|%v|%d|%d|%v|%d", it.marked, it.expanded, len(it.output), it.skipped, it == opts.target, len(opts.params[it.tool]))
	if it.status == "running" && !it.started.IsZero() {
		k += "|" + elapsedText(st.Now().Sub(it.started))
	}
	return k
}

// outputLines draws a call's output under its line: all of it (and its
// input) when expanded; else, for bash, its last lines.
func (it *item) outputLines(st *common.UI, width int) string {
	body := strings.TrimRight(it.toolBody(), "\n")
	w := max(width-6, 10)
	gutter := func(l string) string { return "\n" + st.Dim.Render("  │ "+l) }
	var b strings.Builder
	if it.expanded {
		if in := it.input(); in != "" {
			b.WriteString("\n" + st.Dim.Render(indent(ansi.Wrap(strings.ReplaceAll(common.Visible(in), "\t", "    "), max(width-4, 10), ""))))
		}
		if it.skipped > 0 && it.status == "running" {
			b.WriteString(gutter(fmt.Sprintf("… %s not shown …", sizeText(int(it.skipped)))))
		}
		for _, l := range strings.Split(ansi.Wrap(strings.ReplaceAll(common.Visible(body), "\t", "    "), w, ""), "\n") {
			b.WriteString(gutter(l))
		}
		return b.String()
	}
	if it.tool != "bash" || body == "" {
		return ""
	}
	if it.status == "error" && !it.ran() {
		return "" // it never ran: its result is the reason its line says
	}
	// The last tailLines lines: start is the line break before them (-1:
	// the body has no more lines than that).
	start := len(body)
	for n := 0; n < tailLines && start >= 0; n++ {
		start = strings.LastIndexByte(body[:start], '\n')
	}
	if start >= 0 || (it.skipped > 0 && it.status == "running") {
		more := "…"
		if start >= 0 {
			more += fmt.Sprintf(" %d earlier lines ·", strings.Count(body[:start], "\n")+1)
		}
		if it.skipped > 0 && it.status == "running" {
			more += fmt.Sprintf(" %s before them not kept ·", sizeText(int(it.skipped)))
		}
		b.WriteString(gutter(more + " ctrl+o shows all"))
	}
	for _, l := range strings.Split(body[start+1:], "\n") {
		b.WriteString(gutter(ansi.Truncate(strings.ReplaceAll(common.Visible(l), "\t", "    "), w, "…")))
	}
	return b.String()
}

// input is a call's input as the expanded view shows it: bash's command
// as typed, other tools' arguments as JSON.
func (it *item) input() string {
	if it.args == "" {
		return ""
	}
	if it.tool == "bash" {
		var a struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(it.args), &a) == nil && a.Command != "" {
			return "$ " + strings.TrimRight(a.Command, "\n")
		}
	}
	return "input: " + strings.ReplaceAll(it.args, "\n", " ")
}

// whyMax bounds the bytes of an error's first line that a call's line
// shows: a tool's error is a sentence, but a line of output can be
// megabytes (ctrl+o shows it all).
const whyMax = 1000

// failure says why a call failed, for its line: denial is "denied", with
// the reason the user gave when there is one, and goes right after the
// call; why is the first line of the error the tool gave, shown whole
// (the line wraps) and safely, and goes at its end. A bash command that
// ran has its output and exit status under its line already, so it gets
// no why; one that never ran (refused in plan mode, blocked) has no
// output, and its reason's first line is the why.
func (it *item) failure() (denial, why string) {
	if it.status != "error" {
		return "", ""
	}
	if reason, denied := entries.DeniedReason(it.tool, it.result); denied {
		if reason == "" {
			return "denied", ""
		}
		return "denied: " + common.VisibleLine(reason), ""
	}
	if it.ran() {
		return "", ""
	}
	return "", errorLine(it.result)
}

// ran reports whether a failed call's result is a bash command's output
// (its exit status last), shown under its line, rather than the reason it
// did not run. Only bash shows output under its line.
func (it *item) ran() bool {
	if _, denied := entries.DeniedReason(it.tool, it.result); denied {
		return false
	}
	return it.tool == "bash" && entries.CommandRan(it.result)
}

// errorLine is the first line of an error's text that says something,
// shown as text: whole up to whyMax bytes.
func errorLine(text string) string {
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if len(l) > whyMax {
			cut := whyMax
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l = l[:cut] + "… (ctrl+o shows all)"
		}
		return common.VisibleLine(l)
	}
	return ""
}

// elapsedText says a running call's time the way a clock does.
func elapsedText(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm %02ds", s/60, s%60)
}

// toolTime says a finished call's time: milliseconds under a second.
func toolTime(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.1fs", ms/1000)
}

package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// TestTranscriptShowsControlsVisibly: every part of an item drawn from a
// model, a tool or a file has its controls shown, with markdown too.
func TestTranscriptShowsControlsVisibly(t *testing.T) {
	st := uitest.UI()
	esc := "\x1b]0;t\x07\x1b[8m\u202e"
	items := []*item{
		{kind: kindUser, ready: true, text: "u" + esc},
		{kind: kindAssistant, ready: true, text: "a" + esc + " &#27;[8m", thinking: "th" + esc, args: "bash " + esc, errText: "e" + esc},
		{kind: kindTool, ready: true, tool: "bash", args: `{"command":"ls\n\u001b[8mrm"}`, status: "ok", result: "out" + esc},
		{kind: kindTool, ready: true, tool: "read", path: "f" + esc, status: "ok", result: "out" + esc},
		{kind: kindNotice, ready: true, text: "n" + esc},
		{kind: kindCompaction, ready: true, text: "c" + esc},
	}
	md := func(s string, w int) (string, error) { return s, nil }
	for _, it := range items {
		out := strings.Join(it.render(st, 80, viewOpts{thinking: true, markdown: md}), "\n")
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("item %d draws a control raw: %q", it.kind, out)
		}
	}
}

// viewHeight is the transcript's height in a chat of 100×40.
const viewHeight = 35

// TestRunningOutputIsBoundedAndShownAsText: a flood of output keeps the
// view's copy bounded, says what was not kept, and its controls (an
// escape sequence, a carriage return) are drawn as text in both the last
// lines and the expanded view.
func TestRunningOutputIsBoundedAndShownAsText(t *testing.T) {
	m := New(uitest.UI(), nil)
	m.SetWidth(100)
	m.ToolStart("b1", "bash", `{"command":"make"}`)
	line := strings.Repeat("x", 99) + "\n"
	for range 2000 { // 200 KiB
		m.ToolOutput("b1", line, 0)
	}
	m.ToolOutput("b1", "last \x1b[2Jline\r\n", 3<<20)
	it := m.calls["b1"]
	if it == nil || len(it.output) > liveKeep {
		t.Fatalf("the running call keeps %d bytes", len(it.output))
	}
	view := m.View(viewHeight)
	if !strings.Contains(view, `│ last \x1b[2Jline\x0d`) || strings.ContainsAny(view, "\x1b\r") {
		t.Errorf("the last line is not shown as text:\n%q", view)
	}
	if !strings.Contains(view, "3.2 MiB before them not kept") {
		t.Errorf("the view does not say output was skipped:\n%s", view)
	}
	m.ToggleTool(viewHeight)
	view = m.View(viewHeight)
	if !strings.Contains(view, "$ make") || !strings.Contains(view, `│ last \x1b[2Jline\x0d`) || strings.ContainsAny(view, "\x1b\r") {
		t.Errorf("the expanded call:\n%q", view)
	}
}

// TestSelectionMovesBetweenCalls: alt+↑ from no selection marks the
// latest call, again the one before, never past the first; alt+↓ past
// the latest ends the selection, and ctrl+o then acts on the latest.
func TestSelectionMovesBetweenCalls(t *testing.T) {
	m := New(uitest.UI(), nil)
	m.SetWidth(100)
	var calls []*item
	for i := range 3 {
		it := &item{kind: kindTool, ready: true, tool: "read", path: fmt.Sprintf("f%d", i), status: "ok", result: fmt.Sprintf("content %d", i)}
		calls = append(calls, it)
		m.items = append(m.items, &item{kind: kindUser, ready: true, text: "q"}, it)
	}
	for _, want := range []int{2, 1, 0, 0} {
		m.SelectTool(true, viewHeight)
		if m.sel != calls[want] || !calls[want].marked {
			t.Fatalf("alt+↑ selected %v, want call %d", m.sel, want)
		}
	}
	for range 3 {
		m.SelectTool(false, viewHeight)
	}
	if m.sel != nil || calls[2].marked {
		t.Fatal("alt+↓ past the latest call kept a selection")
	}
	m.ToggleTool(viewHeight)
	view := m.View(viewHeight)
	if !strings.Contains(view, "│ content 2") || strings.Contains(view, "│ content 1") {
		t.Errorf("ctrl+o did not expand the latest call alone:\n%s", view)
	}
}

// TestScrollStopsAtTheFirstLine: scrolled up past the first line, or to
// the top, the view shows the first lines, never blank ones; pgdn then
// moves at once; the bottom shows the end again.
func TestScrollStopsAtTheFirstLine(t *testing.T) {
	m := New(uitest.UI(), nil)
	m.SetWidth(60)
	for i := range 30 {
		m.Notice(fmt.Sprintf("notice %d", i), true)
	}
	const h = 6
	for _, up := range []func(){func() { m.Scroll(1000) }, m.ScrollTop} {
		up()
		if view := m.View(h); !strings.Contains(view, "notice 0") {
			t.Fatalf("scrolled to the top, the view is:\n%s", view)
		}
		m.Scroll(-1)
		if view := m.View(h); strings.Contains(view, "notice 0") || !strings.Contains(view, "notice 1") {
			t.Errorf("a line down from the top, the view is:\n%s", view)
		}
		m.ScrollBottom()
		if view := m.View(h); !strings.Contains(view, "notice 29") {
			t.Errorf("at the bottom, the view is:\n%s", view)
		}
	}
}

// TestSentencesBreakAtSpaces: the transcript's sentences (the new
// session's introduction, a notice, an error, a failed call's reason)
// break only at spaces: "auto-edits" never ends a line as "auto-".
func TestSentencesBreakAtSpaces(t *testing.T) {
	st := uitest.UI()
	text := "in the ask and auto-edits modes the agent's pre-flight checks run only once you approve them"
	words := strings.Fields(text)
	whole := func(name string, lines []string) {
		t.Helper()
		seen := map[string]bool{}
		for _, l := range lines {
			for _, w := range strings.Fields(l) {
				seen[w] = true
			}
		}
		for _, w := range words {
			if !seen[w] {
				t.Errorf("%s: %q broke across lines:\n%s", name, w, strings.Join(lines, "\n"))
			}
		}
	}
	for width := 24; width <= 60; width += 3 {
		m := New(st, nil)
		m.SetWidth(width)
		m.SetEmpty(text)
		whole(fmt.Sprintf("the introduction at %d", width), strings.Split(m.View(20), "\n"))
		for _, it := range []*item{
			{kind: kindNotice, ready: true, mild: true, text: text},
			{kind: kindAssistant, ready: true, errText: text},
			{kind: kindTool, ready: true, tool: "write", path: "n.txt", status: "error", result: "The user denied this write call: " + text},
		} {
			whole(fmt.Sprintf("item %d at %d", it.kind, width), it.render(st, width, viewOpts{}))
		}
	}
}

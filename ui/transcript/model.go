// Package transcript is a chat's transcript: the session's messages,
// answers (markdown once finished, plain while they stream), tool calls
// with their status, preflight markers, live output and the instructions
// their results carried, memory changes, compactions and notices. Items
// from the store are decoded when first drawn and every item caches its
// lines, so a long session costs what its visible part costs. The chat
// feeds it the runtime's events through its methods.
package transcript

import (
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Model is one session's transcript, drawn at a width.
type Model struct {
	ui       *common.UI
	markdown func(text string, width int) (string, error)
	empty    string // said while there are no items

	items    []*item
	live     *item                 // the streaming answer
	calls    map[string]*item      // running tool calls by id
	ended    map[string]*endedCall // calls seen ending, by id: kept over rereads (known.go)
	retry    *item                 // the notice of the current call's retries
	sel      *item                 // the tool call ctrl+o acts on (nil: the latest; tools.go)
	bottom   int                   // lines scrolled up from the bottom
	thinking bool                  // thinking shown (ctrl+t)
	ticking  bool                  // a tick redraws running tool calls' time
	width    int
	files    map[string]*callFiles // the review cards, by call id (files.go)
	hints    CardHints             // what the cards say to press
	// params are tools' schema properties in order, as the engine said
	// them (SetParams): kept over rereads, so a stored call of the tool
	// lists its arguments as its live line did.
	params map[string][]string
}

// SetParams keeps a tool's schema order (events.ToolStarted's Params):
// its calls' lines show their arguments in it. Empty params change
// nothing.
func (m *Model) SetParams(tool string, params []string) {
	if len(params) == 0 {
		return
	}
	if m.params == nil {
		m.params = map[string][]string{}
	}
	m.params[tool] = params
}

// New returns an empty transcript; markdown renders finished answers.
func New(ui *common.UI, markdown func(text string, width int) (string, error)) *Model {
	return &Model{ui: ui, markdown: markdown, calls: map[string]*item{}, hints: CardHints{Diff: "ctrl+o", Select: "alt+↑", Review: "/changes"}}
}

// SetWidth sets the width items are drawn at.
func (m *Model) SetWidth(w int) { m.width = w }

// SetEmpty sets what the transcript says while it has no items.
func (m *Model) SetEmpty(text string) { m.empty = text }

// Clear empties the transcript (the chat left its session).
func (m *Model) Clear() {
	m.items, m.live, m.calls, m.ended, m.files, m.sel = nil, nil, map[string]*item{}, nil, nil, nil
}

// Load shows a session's branch, scrolled to its end.
func (m *Model) Load(entries []sessions.Entry) {
	m.items = itemsFrom(entries, m.ended)
	m.bottom = 0
}

// Reread shows a session's branch as read again, the answer streaming
// now (another program's turn) kept after it. The calls that ended here
// keep what their events said and their entries do not hold (pi's tool
// results have no time, preflight or delivery of pi-tui's).
func (m *Model) Reread(entries []sessions.Entry) {
	m.items = itemsFrom(entries, m.ended)
	if m.live != nil {
		m.items = append(m.items, m.live)
	}
}

// Running reports whether a tool call is running.
func (m *Model) Running() bool { return len(m.calls) > 0 }

// Empty reports whether there is nothing to show yet.
func (m *Model) Empty() bool { return len(m.items) == 0 }

// FirstUser returns the first message of the user's shown ("" for none).
func (m *Model) FirstUser() string {
	for _, it := range m.items {
		if it.kind == kindUser {
			it.decode()
			return it.text
		}
	}
	return ""
}

// User adds a message of the user's, as shown, and scrolls to the end.
func (m *Model) User(text string) {
	m.items = append(m.items, &item{kind: kindUser, ready: true, text: text})
	m.bottom, m.retry = 0, nil
}

// DropUnsent takes out the user's message text, the latest one showing
// it, when it was refused before it was saved (it goes back to the
// input). Items may follow it: the turn's error, and the next queued
// message, sent when the turn's end arrived before the refusal did.
func (m *Model) DropUnsent(text string) {
	for i := len(m.items) - 1; i >= 0; i-- {
		if m.items[i].kind == kindUser && m.items[i].text == text {
			m.items = append(m.items[:i], m.items[i+1:]...)
			return
		}
	}
}

// Notice adds a line of pi-tui's own: mild is information, else an error.
func (m *Model) Notice(text string, mild bool) {
	m.items = append(m.items, &item{kind: kindNotice, text: text, ready: true, mild: mild})
}

// Retry shows the current model call's retries in one notice, updated in
// place.
func (m *Model) Retry(text string) {
	if m.retry == nil {
		m.retry = &item{kind: kindNotice, ready: true, mild: true}
		m.items = append(m.items, m.retry)
	}
	m.retry.text, m.retry.cacheKey = text, ""
}

// EndRetry ends the retries' notice: the next retry gets a new one.
func (m *Model) EndRetry() { m.retry = nil }

// Stream adds streamed text and thinking to the answer arriving.
func (m *Model) Stream(delta, thinking string) {
	m.retry = nil
	if m.live == nil {
		m.live = &item{kind: kindAssistant, ready: true, streaming: true}
		m.items = append(m.items, m.live)
	}
	m.live.text += delta
	m.live.thinking += thinking
}

// EndAnswer ends the answer arriving; text is the whole answer, shown
// when none streamed. What arrived stays, marked partial when the answer
// broke off.
func (m *Model) EndAnswer(text string, partial bool) {
	if m.live == nil && text != "" {
		m.live = &item{kind: kindAssistant, ready: true, text: text}
		m.items = append(m.items, m.live)
	}
	if m.live != nil {
		// The reason is said once, by the turn's end.
		m.live.streaming = false
		m.live.partial = partial
		m.live.cacheKey = ""
	}
	m.live = nil
}

// ToolStart adds a running tool call, timed from now.
func (m *Model) ToolStart(callID, tool, args string) tea.Cmd {
	m.retry = nil
	it := &item{kind: kindTool, ready: true, callID: callID, tool: tool, args: args, status: "running"}
	m.calls[callID] = it
	m.items = append(m.items, it)
	return m.toolStarted(it)
}

// Result is how a tool call ended.
type Result struct {
	CallID, Tool, Path, Text string
	IsError                  bool
	ToolMs                   float64
	Preflight                *events.Preflight
	Delivery                 *events.Delivery
	Change                   *memory.Change // a remember call's
	// Files and FilesNote are what the call's checkpoint recorded (its
	// review card).
	Files     []events.FileChange
	FilesNote string
}

// ToolEnd shows a call's end (a call not seen starting is added).
func (m *Model) ToolEnd(r Result) {
	it := m.calls[r.CallID]
	if it == nil {
		it = &item{kind: kindTool, ready: true, callID: r.CallID, tool: r.Tool}
		m.items = append(m.items, it)
	}
	delete(m.calls, r.CallID)
	it.status, it.path, it.result, it.toolMs, it.pre, it.delivery = "ok", r.Path, r.Text, r.ToolMs, r.Preflight, r.Delivery
	it.change = r.Change
	m.endFiles(r.CallID, r.Files, r.FilesNote)
	if r.IsError {
		it.status = "error"
	}
	it.cacheKey = ""
	if r.CallID != "" {
		if m.ended == nil {
			m.ended = map[string]*endedCall{}
		}
		m.ended[r.CallID] = &endedCall{Result: r}
	}
}

// Compaction shows a compaction's summary.
func (m *Model) Compaction(summary string) {
	m.items = append(m.items, &item{kind: kindCompaction, ready: true, text: summary})
}

// LastChange returns the latest memory change not undone, with the call
// that made it.
func (m *Model) LastChange() (callID string, c memory.Change, ok bool) {
	for i := len(m.items) - 1; i >= 0; i-- {
		it := m.items[i]
		if it.kind == kindTool {
			it.decode() // a reread call's live change is filled in then
		}
		if it.change != nil && !it.undone {
			return it.callID, *it.change, true
		}
	}
	return "", memory.Change{}, false
}

// MarkUndone shows call callID's memory change as undone. Items may have
// been reread from the file since the undo began: they are found by call.
func (m *Model) MarkUndone(callID string) {
	for _, it := range m.items {
		if it.change != nil && it.callID == callID {
			it.undone, it.cacheKey = true, ""
		}
	}
	if e := m.ended[callID]; e != nil {
		e.undone = true
	}
}

// ToggleThinking shows or hides answers' thinking.
func (m *Model) ToggleThinking() { m.thinking = !m.thinking }

// Scroll moves the view up by n lines (down for n < 0), never below the
// end.
func (m *Model) Scroll(n int) { m.bottom = max(m.bottom+n, 0) }

// ScrollTop scrolls to the first line (View stops at it).
func (m *Model) ScrollTop() { m.bottom = math.MaxInt / 2 }

// ScrollBottom scrolls to the end, where new text shows.
func (m *Model) ScrollBottom() { m.bottom = 0 }

// View draws the last h lines (or h lines ending m.bottom lines up).
// Items are drawn from the end backwards, only as many as fit: a long
// session costs what its visible part costs.
func (m *Model) View(h int) string {
	opts := m.drawOpts()
	need := h + m.bottom
	var lines []string
	for i := len(m.items) - 1; i >= 0 && len(lines) < need; i-- {
		l := m.items[i].render(m.ui, m.width, opts)
		lines = append(append([]string(nil), l...), lines...)
	}
	if len(m.items) == 0 && m.empty != "" {
		// The introduction is a sentence the user needs whole (what the
		// agent may do, and that commands wait for approval): wrapped at
		// words, never cut at the edge.
		lines = nil
		for _, l := range strings.Split(common.Wrap(m.empty, max(m.width, 10)), "\n") {
			lines = append(lines, m.ui.Dim.Render(l))
		}
	}
	// Scrolled up past the first line, the view stops with it at the top.
	end := max(len(lines)-m.bottom, min(h, len(lines)))
	start := max(end-h, 0)
	m.bottom = len(lines) - end
	out := lines[start:end]
	for len(out) < h {
		out = append([]string{""}, out...)
	}
	return strings.Join(out, "\n")
}

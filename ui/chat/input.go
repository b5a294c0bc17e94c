package chat

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/editor"
)

// input is the chat's message field: the editor's buffer (lazy wrapping,
// only the visible rows drawn, undo and redo, readline keys) with a
// prompt. It grows with its text up to a third of the tab and then
// scrolls inside, marking the rows hidden above and below with ↑ and ↓.
// A bracketed paste arrives as one key and is inserted whole; one of more
// than 10 lines (or 1,000 characters) shows as one marker, "[paste #1
// +200 lines]", as in pi, which the Expand key opens to edit. What is
// sent is the text with every marker expanded (ADR 0056).
//
// Other parts of the chat (slash-command and @ completion) edit it through
// its methods: Value (the text with its markers), Text (expanded),
// SetValue, Replace, Insert, Len, CursorWord, ReplaceWord.
type input struct {
	*editor.Buffer
}

func newInput(ui *common.UI) *input {
	b := editor.New(ui.Cursor, ui.Gutter)
	b.HideEnd()
	b.SetPrompt("› ")
	b.ShowScrollMarks()
	b.CollapsePastes()
	return &input{b}
}

// SetValue replaces the text with s, text from elsewhere (a message
// queued, refused or picked in /tree), as one edit (ctrl+z brings the old
// text back) and leaves the cursor at the end. A paste of this input that
// s holds shows as its marker again. Text of the input itself (Value, a
// message recalled) is put back with Replace.
func (in *input) SetValue(s string) { in.Replace(in.Collapse(s)) }

// Text is what the input sends: its text with every paste marker
// expanded.
func (in *input) Text() string { return in.Expanded() }

// CursorWord returns the word that ends at the cursor, back to the
// previous space or line start: "/mod" or "@src/ma" while one is typed.
func (in *input) CursorWord() string { return in.WordBefore() }

// ReplaceWord replaces CursorWord's word with s (a completion), as one
// edit, and leaves the cursor after it. Newlines in s become spaces.
func (in *input) ReplaceWord(s string) { in.ReplaceWordBefore(s) }

// minInputRows keeps room for a second line, so the field reads as one
// that takes more than a line.
const minInputRows = 2

// fit sizes the field for a tab of width × tabHeight: as many rows as its
// text takes at that width, at least minInputRows, at most a third of the
// tab.
func (in *input) fit(width, tabHeight int) {
	in.SetSize(width, 1) // the width first: rows are counted at it
	in.SetSize(width, in.rows(tabHeight))
}

func (in *input) rows(tabHeight int) int {
	return max(in.Rows(max(tabHeight/3, minInputRows)), minInputRows)
}

func (m *Model) inputHeight() int { return m.input.rows(m.height) }

// inputKey handles a key of the chat that is not the chat's own: sending,
// the history of sent messages, and editing.
func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Newline):
		m.input.Insert("\n")
		m.input.fit(m.width, m.height)
		return nil
	case key.Matches(msg, k.Expand):
		if !m.input.ExpandPaste() {
			return common.Notice("%s expands a paste marker: move the cursor onto one, or just after it", k.Expand.Help().Key)
		}
		m.input.fit(m.width, m.height)
		return nil
	case key.Matches(msg, k.Send) && !msg.Paste:
		// Sent and stored whole; the history keeps the markers, as the
		// input showed them.
		text := strings.TrimSpace(m.input.Text())
		if text == "" {
			return nil
		}
		shown := strings.TrimSpace(m.input.Value())
		m.input.SetValue("")
		m.input.fit(m.width, m.height)
		m.sent.add(shown)
		if strings.HasPrefix(text, "/") {
			return m.command(text)
		}
		if m.inTurn() {
			// The agent is busy: the message waits its turn.
			m.queue = append(m.queue, text)
			return common.Notice("%s", noticeQueued)
		}
		return m.sendWithFiles(text)
	case key.Matches(msg, k.HistPrev) && (m.input.Len() == 0 || m.sent.shownIn(m.input)):
		// Like a shell: ↑ steps back through what was sent, as long as
		// the input still shows an earlier message unchanged.
		if text, ok := m.sent.back(); ok {
			m.input.Replace(text)
			m.input.fit(m.width, m.height)
		}
		return nil
	case m.sent.browsing() && key.Matches(msg, k.HistNext) && m.sent.shownIn(m.input):
		m.input.Replace(m.sent.forward())
		m.input.fit(m.width, m.height)
		return nil
	}
	// Only a one-character text can have become "/": the text is built
	// only then.
	before := ""
	if m.input.Len() <= 1 {
		before = m.input.Value()
	}
	collapsed := msg.Paste && m.input.Collapses(string(msg.Runes))
	m.input.Update(msg)
	m.input.fit(m.width, m.height)
	if collapsed {
		return tea.Batch(m.afterInput(before), common.Notice("%s expands the paste", m.keys.Expand.Help().Key))
	}
	return m.afterInput(before)
}

// history is what was sent from the input, oldest first, as the input
// showed it (paste markers and all: the input keeps its pastes), and the
// entry ↑ and ↓ show (pos == len(sent): none, the input is the user's
// own).
type history struct {
	sent []string
	pos  int
}

func (h *history) add(text string) {
	h.sent = append(h.sent, text)
	h.pos = len(h.sent)
}

// browsing reports whether an entry is shown.
func (h *history) browsing() bool { return h.pos < len(h.sent) }

// back steps to the entry before the one shown (false at the first).
func (h *history) back() (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	h.pos--
	return h.sent[h.pos], true
}

// forward steps to the entry after the one shown; past the latest, the
// input is empty again.
func (h *history) forward() string {
	h.pos++
	if h.pos < len(h.sent) {
		return h.sent[h.pos]
	}
	return ""
}

// shownIn reports whether in holds the entry it was filled with,
// unedited.
func (h *history) shownIn(in *input) bool {
	return h.browsing() && in.Len() == len(h.sent[h.pos]) && in.Value() == h.sent[h.pos]
}

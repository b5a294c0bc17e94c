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

// key handles a key the chat and the menu leave to the composer: a new
// line, expanding a paste, the history of sent messages, and editing.
// On Send it empties the input and returns what to send (send is "" for
// every other key, and for an empty input); the chat decides what sending
// it does.
func (in *composer) key(msg tea.KeyMsg) (cmd tea.Cmd, send string) {
	k := in.keys
	switch {
	case key.Matches(msg, k.Newline):
		in.input.Insert("\n")
		in.fit()
		return nil, ""
	case key.Matches(msg, k.Expand):
		if !in.input.ExpandPaste() {
			return common.Notice("%s expands a paste marker: move the cursor onto one, or just after it", k.Expand.Help().Key), ""
		}
		in.fit()
		return nil, ""
	case key.Matches(msg, k.Send) && !msg.Paste:
		// Sent and stored whole; the history keeps the markers, as the
		// input showed them.
		text := strings.TrimSpace(in.input.Text())
		if text == "" {
			return nil, ""
		}
		shown := strings.TrimSpace(in.input.Value())
		in.set("")
		in.sent.add(shown)
		return nil, text
	case key.Matches(msg, k.HistPrev) && (in.input.Len() == 0 || in.sent.shownIn(in.input)):
		// Like a shell: ↑ steps back through what was sent, as long as
		// the input still shows an earlier message unchanged.
		if text, ok := in.sent.back(); ok {
			in.input.Replace(text)
			in.fit()
		}
		return nil, ""
	case in.sent.browsing() && key.Matches(msg, k.HistNext) && in.sent.shownIn(in.input):
		in.input.Replace(in.sent.forward())
		in.fit()
		return nil, ""
	}
	// Only a one-character text can have become "/": the text is built
	// only then.
	before := ""
	if in.input.Len() <= 1 {
		before = in.input.Value()
	}
	collapsed := msg.Paste && in.input.Collapses(string(msg.Runes))
	in.input.Update(msg)
	in.fit()
	if collapsed {
		return tea.Batch(in.afterInput(before), common.Notice("%s expands the paste", k.Expand.Help().Key)), ""
	}
	return in.afterInput(before), ""
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

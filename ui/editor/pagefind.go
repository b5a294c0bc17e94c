package editor

import (
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/ui/common"
)

// finding is the AGENTS.md editor's search line (ctrl+f). The cursor
// jumps to the first match as the query is typed, counted from where the
// search began; enter or ↓ moves to the next match, ↑ to the previous,
// wrapping round the file; esc leaves the cursor where it is.
type finding struct {
	query    string
	row, col int // the cursor when the search began
	found    bool
}

func (p *Page) startFind() {
	row, col := p.buf.Cursor()
	p.find = &finding{row: row, col: col}
}

// findKey handles a key while the search line is open; it reports false
// for a key the page handles as usual (the search then ends).
func (p *Page) findKey(msg tea.KeyMsg) bool {
	f, k := p.find, p.keys
	switch {
	case key.Matches(msg, k.Close):
		p.find = nil
	case key.Matches(msg, k.FindNext):
		f.found = p.buf.Find(f.query, true)
	case key.Matches(msg, k.FindPrev):
		f.found = p.buf.Find(f.query, false)
	case key.Matches(msg, p.buf.KeyMap().Backspace):
		if f.query != "" {
			_, n := utf8.DecodeLastRuneInString(f.query)
			f.query = f.query[:len(f.query)-n]
			p.refind()
		}
	case msg.Type == tea.KeyRunes && !msg.Alt, msg.Type == tea.KeySpace:
		f.query += string(msg.Runes)
		p.refind()
	default:
		p.find = nil
		return false
	}
	return true
}

// refind looks for the query from where the search began, so typing and
// erasing moves the cursor like an incremental search.
func (p *Page) refind() {
	f := p.find
	p.buf.SetCursor(f.row, f.col)
	f.found = f.query == "" || p.buf.FindHere(f.query)
}

// findLine is the search line shown in place of the key hints.
func (p *Page) findLine() string {
	f := p.find
	state := ""
	switch {
	case f.query == "":
	case !f.found:
		state = p.st.Warn.Render("  no match")
	default:
		state = p.st.Dim.Render("  " + common.PluralOf(p.buf.Count(f.query), "match", "matches"))
	}
	return "find: " + common.VisibleLine(f.query) + p.st.Cursor.Render(" ") + state + p.st.Dim.Render("  enter/↓ next · ↑ previous · esc done")
}

// Package editor is a multi-line text editor for instruction files and
// memory entries. It exists because the stock bubbles textarea re-wraps
// the whole buffer on every render (about 10 ms a keystroke on a 32 KiB,
// 800-line file), stops Enter at MaxHeight and cuts pastes at 10,000
// lines. This buffer wraps lazily, caches the wrapping per line and renders
// only the rows on screen, so a keystroke costs the same in a 10-line file
// and in an 800-line one.
package editor

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-runewidth"

	"github.com/pi-tui/pi-tui/ui/common"
)

// tabWidth is how many cells a tab takes on screen; the file keeps the tab.
const tabWidth = 4

// KeyMap holds the buffer's editing keys, as data so help can show them.
type KeyMap struct {
	Up, Down, Left, Right         key.Binding
	WordLeft, WordRight           key.Binding
	Home, End, Top, Bottom        key.Binding
	PageUp, PageDown              key.Binding
	Backspace, Delete, DeleteWord key.Binding
	KillLine, KillStart           key.Binding
	Newline, Tab                  key.Binding
	Undo, Redo                    key.Binding
}

// DefaultKeyMap is the editing keymap.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:         key.NewBinding(key.WithKeys("up")),
		Down:       key.NewBinding(key.WithKeys("down")),
		Left:       key.NewBinding(key.WithKeys("left")),
		Right:      key.NewBinding(key.WithKeys("right")),
		WordLeft:   key.NewBinding(key.WithKeys("alt+left", "ctrl+left", "alt+b"), key.WithHelp("alt+b/f", "word back/forward")),
		WordRight:  key.NewBinding(key.WithKeys("alt+right", "ctrl+right", "alt+f")),
		Home:       key.NewBinding(key.WithKeys("home", "ctrl+a"), key.WithHelp("ctrl+a/e", "line start/end")),
		End:        key.NewBinding(key.WithKeys("end", "ctrl+e")),
		Top:        key.NewBinding(key.WithKeys("ctrl+home")),
		Bottom:     key.NewBinding(key.WithKeys("ctrl+end")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown")),
		Backspace:  key.NewBinding(key.WithKeys("backspace", "ctrl+h")),
		Delete:     key.NewBinding(key.WithKeys("delete", "ctrl+d")),
		DeleteWord: key.NewBinding(key.WithKeys("ctrl+w", "alt+backspace"), key.WithHelp("ctrl+w", "delete word")),
		KillLine:   key.NewBinding(key.WithKeys("ctrl+k"), key.WithHelp("ctrl+k", "delete to line end")),
		KillStart:  key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "delete to line start")),
		Undo:       key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo")),
		Redo:       key.NewBinding(key.WithKeys("ctrl+y"), key.WithHelp("ctrl+y", "redo")),
		Newline:    key.NewBinding(key.WithKeys("enter", "ctrl+j")),
		Tab:        key.NewBinding(key.WithKeys("tab")),
	}
}

// Buffer is the editable text with a cursor and a viewport.
type Buffer struct {
	lines []string // the text split at '\n'; never empty
	wraps [][]int  // per line: rune offsets where its screen rows start; nil until needed
	bytes int      // len(Value()), kept up to date on every edit

	row, col int // cursor: line index and rune offset in the line
	wantX    int // screen column the cursor tries to keep when moving up/down

	top, topSeg   int // first visible line and its first visible row
	width, height int // text area size in cells (gutter excluded)

	hist   history // undo and redo (undo.go)
	pastes pastes  // long pastes collapsed into markers (paste.go)

	focused bool
	noEnd   bool   // do not mark rows past the end with ~
	marks   bool   // mark the first and last row "↑"/"↓" when text is scrolled off
	prompt  string // drawn in the gutter of the first row (an input's "› ")
	keys    KeyMap

	cursorStyle lipgloss.Style
	gutterStyle lipgloss.Style
}

// New returns an empty, focused buffer. cursor and gutter are styles from
// the program's renderer.
func New(cursor, gutter lipgloss.Style) *Buffer {
	return &Buffer{lines: []string{""}, wraps: [][]int{nil}, width: 40, height: 10, focused: true,
		keys: DefaultKeyMap(), cursorStyle: cursor, gutterStyle: gutter}
}

// HideEnd stops marking rows past the end of the text with "~" (for a
// small input rather than a file).
func (b *Buffer) HideEnd() { b.noEnd = true }

// SetPrompt draws p (two cells) before the first row, marking an input.
func (b *Buffer) SetPrompt(p string) { b.prompt = p }

// SetKeyMap replaces the editing keys: a page that takes a key for
// itself (the AGENTS.md editor's ctrl+e) gives its buffer a map without it,
// so the help shows what each key does there.
func (b *Buffer) SetKeyMap(k KeyMap) { b.keys = k }

// KeyMap returns the editing keys, for help.
func (b *Buffer) KeyMap() KeyMap { return b.keys }

// ShowScrollMarks marks the first visible row "↑" when text is scrolled
// off above and the last "↓" when there is more below (for an input that
// shows a window on a long text).
func (b *Buffer) ShowScrollMarks() { b.marks = true }

// SetValue replaces the text, puts the cursor at the start and forgets
// the undo history (a new text, not an edit).
func (b *Buffer) SetValue(s string) {
	b.setText(s)
	b.row, b.col, b.wantX, b.top, b.topSeg = 0, 0, 0, 0, 0
	b.hist = history{}
}

// Replace replaces the text as one edit that ctrl+z undoes, putting the
// cursor at the end (a recalled message, a completion).
func (b *Buffer) Replace(s string) {
	b.checkpoint(editOther)
	b.setText(s)
	b.row = len(b.lines) - 1
	b.col = utf8.RuneCountInString(b.lines[b.row])
	b.syncX()
	b.scrollToCursor()
}

func (b *Buffer) setText(s string) {
	b.lines = strings.Split(s, "\n")
	b.wraps = make([][]int, len(b.lines))
	b.bytes = len(s)
}

// Value returns the text.
func (b *Buffer) Value() string { return strings.Join(b.lines, "\n") }

// Len returns the text's size in bytes without building it.
func (b *Buffer) Len() int { return b.bytes }

// Lines returns the number of lines.
func (b *Buffer) Lines() int { return len(b.lines) }

// Cursor returns the cursor's line and column (0-based, columns in runes).
func (b *Buffer) Cursor() (row, col int) { return b.row, b.col }

// Focus and Blur control whether the cursor shows and keys are taken.
func (b *Buffer) Focus() { b.focused = true }

// Blur hides the cursor.
func (b *Buffer) Blur() { b.focused = false }

// SetSize sets the area the text is drawn in, gutter included.
func (b *Buffer) SetSize(width, height int) {
	w := max(width-gutterWidth, 4)
	if w != b.width {
		for i := range b.wraps {
			b.wraps[i] = nil
		}
	}
	b.width, b.height = w, max(height, 1)
	b.scrollToCursor()
}

const gutterWidth = 2

// Update applies a key to the buffer. It returns whether the text changed.
func (b *Buffer) Update(msg tea.Msg) (changed bool) {
	km, ok := msg.(tea.KeyMsg)
	if !ok || !b.focused {
		return false
	}
	if km.Paste {
		b.paste(string(km.Runes))
		return true
	}
	k := b.keys
	switch {
	case key.Matches(km, k.Undo):
		return b.Undo()
	case key.Matches(km, k.Redo):
		return b.Redo()
	case key.Matches(km, k.Newline):
		b.Insert("\n")
		return true
	case key.Matches(km, k.Tab):
		b.checkpoint(editTyping)
		b.insert("\t")
		return true
	case key.Matches(km, k.Backspace):
		b.checkpoint(editDeleting)
		return b.backspace()
	case key.Matches(km, k.Delete):
		b.checkpoint(editDeleting)
		return b.deleteForward()
	case key.Matches(km, k.DeleteWord):
		b.checkpoint(editOther)
		return b.deleteWordBack()
	case key.Matches(km, k.KillLine):
		b.checkpoint(editOther)
		return b.killLine()
	case key.Matches(km, k.KillStart):
		b.checkpoint(editOther)
		return b.killStart()
	case key.Matches(km, k.Left):
		b.moveLeft()
	case key.Matches(km, k.Right):
		b.moveRight()
	case key.Matches(km, k.WordLeft):
		b.wordLeft()
	case key.Matches(km, k.WordRight):
		b.wordRight()
	case key.Matches(km, k.Up):
		b.moveVert(-1)
	case key.Matches(km, k.Down):
		b.moveVert(1)
	case key.Matches(km, k.PageUp):
		b.moveVert(-b.height)
	case key.Matches(km, k.PageDown):
		b.moveVert(b.height)
	case key.Matches(km, k.Home):
		b.col = 0
		b.syncX()
	case key.Matches(km, k.End):
		b.col = utf8.RuneCountInString(b.lines[b.row])
		b.syncX()
	case key.Matches(km, k.Top):
		b.row, b.col = 0, 0
		b.syncX()
	case key.Matches(km, k.Bottom):
		b.row = len(b.lines) - 1
		b.col = utf8.RuneCountInString(b.lines[b.row])
		b.syncX()
	case km.Type == tea.KeyRunes || km.Type == tea.KeySpace:
		if km.Alt {
			return false
		}
		b.checkpoint(editTyping)
		b.insert(string(km.Runes))
		return true
	default:
		return false
	}
	b.hist.last = editNone // a move ends the edit being coalesced
	b.scrollToCursor()
	return false
}

// Insert puts s at the cursor as one edit that ctrl+z undoes; s may hold
// newlines (a paste). Control characters other than tab and newline are
// dropped: they would corrupt the screen and have no place in an
// instruction file.
func (b *Buffer) Insert(s string) {
	b.checkpoint(editOther)
	b.insert(s)
}

func (b *Buffer) insert(s string) { b.insertClean(b.clean(s)) }

// clean turns CRLF and CR into LF and drops control characters other than
// tab and newline; in a buffer that collapses pastes, a rune that could
// pass for a paste's marker becomes U+FFFD.
func (b *Buffer) clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r == '\r' {
			return '\n'
		}
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		if b.pastes.on && r >= pasteFirst && r <= pasteLast {
			return utf8.RuneError
		}
		return r
	}, s)
}

// insertClean puts s, cleaned, at the cursor.
func (b *Buffer) insertClean(s string) {
	if s == "" {
		return
	}
	line := b.lines[b.row]
	at := byteOffset(line, b.col)
	head, tail := line[:at], line[at:]
	parts := strings.Split(s, "\n")
	b.bytes += len(s)
	if len(parts) == 1 {
		b.lines[b.row] = head + s + tail
		b.wraps[b.row] = nil
		b.col += utf8.RuneCountInString(s)
	} else {
		newLines := make([]string, len(parts))
		newLines[0] = head + parts[0]
		copy(newLines[1:], parts[1:])
		last := len(parts) - 1
		b.col = utf8.RuneCountInString(parts[last])
		newLines[last] = parts[last] + tail
		b.lines = splice(b.lines, b.row, 1, newLines)
		b.wraps = splice(b.wraps, b.row, 1, make([][]int, len(newLines)))
		b.row += last
	}
	b.syncX()
	b.scrollToCursor()
}

func splice[T any](s []T, at, remove int, insert []T) []T {
	out := make([]T, 0, len(s)-remove+len(insert))
	out = append(out, s[:at]...)
	out = append(out, insert...)
	return append(out, s[at+remove:]...)
}

func byteOffset(s string, runes int) int {
	for i := range s {
		if runes == 0 {
			return i
		}
		runes--
	}
	return len(s)
}

func (b *Buffer) backspace() bool {
	if b.col == 0 {
		if b.row == 0 {
			return false
		}
		prev := b.lines[b.row-1]
		b.col = utf8.RuneCountInString(prev)
		b.lines = splice(b.lines, b.row-1, 2, []string{prev + b.lines[b.row]})
		b.wraps = splice(b.wraps, b.row-1, 2, [][]int{nil})
		b.row--
		b.bytes--
	} else {
		line := b.lines[b.row]
		at := byteOffset(line, b.col)
		_, size := utf8.DecodeLastRuneInString(line[:at])
		b.lines[b.row] = line[:at-size] + line[at:]
		b.wraps[b.row] = nil
		b.col--
		b.bytes -= size
	}
	b.syncX()
	b.scrollToCursor()
	return true
}

func (b *Buffer) deleteForward() bool {
	line := b.lines[b.row]
	at := byteOffset(line, b.col)
	if at == len(line) {
		if b.row == len(b.lines)-1 {
			return false
		}
		b.lines = splice(b.lines, b.row, 2, []string{line + b.lines[b.row+1]})
		b.wraps = splice(b.wraps, b.row, 2, [][]int{nil})
		b.bytes--
	} else {
		_, size := utf8.DecodeRuneInString(line[at:])
		b.lines[b.row] = line[:at] + line[at+size:]
		b.wraps[b.row] = nil
		b.bytes -= size
	}
	b.scrollToCursor()
	return true
}

func (b *Buffer) deleteWordBack() bool {
	if b.col == 0 {
		return b.backspace()
	}
	end := b.col
	b.wordLeft()
	line := b.lines[b.row]
	from, to := byteOffset(line, b.col), byteOffset(line, end)
	b.lines[b.row] = line[:from] + line[to:]
	b.wraps[b.row] = nil
	b.bytes -= to - from
	b.scrollToCursor()
	return true
}

func (b *Buffer) killLine() bool {
	line := b.lines[b.row]
	at := byteOffset(line, b.col)
	if at == len(line) {
		return b.deleteForward()
	}
	b.lines[b.row] = line[:at]
	b.wraps[b.row] = nil
	b.bytes -= len(line) - at
	b.scrollToCursor()
	return true
}

func (b *Buffer) killStart() bool {
	if b.col == 0 {
		return false
	}
	line := b.lines[b.row]
	at := byteOffset(line, b.col)
	b.lines[b.row] = line[at:]
	b.wraps[b.row] = nil
	b.bytes -= at
	b.col = 0
	b.syncX()
	b.scrollToCursor()
	return true
}

func (b *Buffer) moveLeft() {
	switch {
	case b.col > 0:
		b.col--
	case b.row > 0:
		b.row--
		b.col = utf8.RuneCountInString(b.lines[b.row])
	}
	b.syncX()
}

func (b *Buffer) moveRight() {
	switch {
	case b.col < utf8.RuneCountInString(b.lines[b.row]):
		b.col++
	case b.row < len(b.lines)-1:
		b.row++
		b.col = 0
	}
	b.syncX()
}

func (b *Buffer) wordLeft() {
	r := []rune(b.lines[b.row])
	c := min(b.col, len(r))
	for c > 0 && unicode.IsSpace(r[c-1]) {
		c--
	}
	for c > 0 && !unicode.IsSpace(r[c-1]) {
		c--
	}
	if c == b.col && b.row > 0 && b.col == 0 {
		b.moveLeft()
		return
	}
	b.col = c
	b.syncX()
}

func (b *Buffer) wordRight() {
	r := []rune(b.lines[b.row])
	c := b.col
	if c >= len(r) {
		b.moveRight()
		return
	}
	// As readline's alt+f: to the end of the next word.
	for c < len(r) && unicode.IsSpace(r[c]) {
		c++
	}
	for c < len(r) && !unicode.IsSpace(r[c]) {
		c++
	}
	b.col = c
	b.syncX()
}

// segments returns (and caches) where line i's screen rows start.
func (b *Buffer) segments(i int) []int {
	if b.wraps[i] == nil {
		b.wraps[i] = b.wrapLine(b.lines[i])
	}
	return b.wraps[i]
}

// wrapLine breaks a line into screen rows of at most the text's width,
// preferring to break after a space. It returns each row's first rune.
func (b *Buffer) wrapLine(line string) []int {
	width := b.width
	starts := []int{0}
	x, lastSpace, idx := 0, -1, 0
	rowStart := 0
	runes := []rune(line)
	for idx < len(runes) {
		w := b.cellWidth(runes[idx], x)
		if x+w > width && idx > rowStart {
			brk := idx
			if lastSpace >= rowStart && lastSpace+1 < idx {
				brk = lastSpace + 1
			}
			starts = append(starts, brk)
			rowStart, lastSpace = brk, -1
			x = 0
			for j := brk; j < idx; j++ {
				x += b.cellWidth(runes[j], x)
			}
			continue
		}
		if runes[idx] == ' ' {
			lastSpace = idx
		}
		x += w
		idx++
	}
	return starts
}

// cellWidth is the cells rune r takes at column x: a paste's marker is
// as wide as its label (at most the text's width).
func (b *Buffer) cellWidth(r rune, x int) int {
	if b.isMarker(r) {
		return len(b.markerLabel(r))
	}
	return cellWidth(r, x)
}

func cellWidth(r rune, x int) int {
	if r == '\t' {
		return tabWidth - x%tabWidth
	}
	if _, ok := common.Glyph(r); ok {
		return 1 // drawn as a one-cell stand-in
	}
	return max(runewidth.RuneWidth(r), 0)
}

// cursorSeg returns the screen row of the cursor within its line.
func (b *Buffer) cursorSeg() int {
	segs := b.segments(b.row)
	s := 0
	for i, start := range segs {
		if b.col >= start {
			s = i
		}
	}
	return s
}

// xOf returns the screen column of rune col on row seg of line i.
func (b *Buffer) xOf(i, seg, col int) int {
	segs := b.segments(i)
	runes := []rune(b.lines[i])
	x := 0
	for j := segs[seg]; j < col && j < len(runes); j++ {
		x += b.cellWidth(runes[j], x)
	}
	return x
}

func (b *Buffer) syncX() { b.wantX = b.xOf(b.row, b.cursorSeg(), b.col) }

// moveVert moves the cursor n screen rows, keeping its screen column.
func (b *Buffer) moveVert(n int) {
	seg := b.cursorSeg()
	for ; n < 0; n++ {
		if seg > 0 {
			seg--
		} else if b.row > 0 {
			b.row--
			seg = len(b.segments(b.row)) - 1
		} else {
			b.col = 0
			return
		}
	}
	for ; n > 0; n-- {
		if seg < len(b.segments(b.row))-1 {
			seg++
		} else if b.row < len(b.lines)-1 {
			b.row++
			seg = 0
		} else {
			b.col = utf8.RuneCountInString(b.lines[b.row])
			return
		}
	}
	segs := b.segments(b.row)
	runes := []rune(b.lines[b.row])
	end := len(runes)
	if seg+1 < len(segs) {
		end = segs[seg+1] - 1 // stay on this row
	}
	c, x := segs[seg], 0
	for c < end && c < len(runes) {
		w := b.cellWidth(runes[c], x)
		if x+w > b.wantX {
			break
		}
		x += w
		c++
	}
	b.col = max(c, segs[seg])
}

// scrollToCursor moves the viewport so the cursor row is visible; an
// input (HideEnd) then shows as much text as fits, so a field grown or a
// text shortened leaves no empty rows under text scrolled off above.
func (b *Buffer) scrollToCursor() {
	b.cursorInView()
	if b.noEnd {
		b.fillView()
	}
}

// fillView moves the viewport up while rows under the text are empty.
func (b *Buffer) fillView() {
	rows, i, s := 0, b.top, b.topSeg
	for i < len(b.lines) && rows < b.height {
		rows++
		if s++; s >= len(b.segments(i)) {
			i, s = i+1, 0
		}
	}
	for ; rows < b.height; rows++ {
		switch {
		case b.topSeg > 0:
			b.topSeg--
		case b.top > 0:
			b.top--
			b.topSeg = len(b.segments(b.top)) - 1
		default:
			return
		}
	}
}

func (b *Buffer) cursorInView() {
	seg := b.cursorSeg()
	if b.row < b.top || (b.row == b.top && seg < b.topSeg) {
		b.top, b.topSeg = b.row, seg
		return
	}
	// Count rows from the top of the viewport to the cursor.
	rows, i, s := 0, b.top, b.topSeg
	for (i < b.row || (i == b.row && s < seg)) && rows < b.height {
		rows++
		s++
		if s >= len(b.segments(i)) {
			i, s = i+1, 0
		}
	}
	if rows < b.height {
		return
	}
	// The cursor is below: walk up from it height-1 rows.
	i, s = b.row, seg
	for n := 0; n < b.height-1; n++ {
		if s > 0 {
			s--
		} else if i > 0 {
			i--
			s = len(b.segments(i)) - 1
		} else {
			break
		}
	}
	b.top, b.topSeg = i, s
}

// View draws the visible rows. A gutter marks a continued (wrapped) row.
func (b *Buffer) View() string {
	var out strings.Builder
	out.Grow((b.width + gutterWidth + 8) * b.height)
	i, s := b.top, b.topSeg
	var runes []rune // line i as runes, converted once for all its rows
	runesOf := -1
	for n := 0; n < b.height; n++ {
		if n > 0 {
			out.WriteByte('\n')
		}
		if i >= len(b.lines) {
			if !b.noEnd {
				out.WriteString(b.gutterStyle.Render("~ "))
			}
			continue
		}
		segs := b.segments(i)
		last := n == b.height-1 && (s+1 < len(segs) || i+1 < len(b.lines))
		switch {
		case b.marks && n == 0 && (i > 0 || s > 0):
			out.WriteString(b.gutterStyle.Render("↑ "))
		case b.marks && last:
			out.WriteString(b.gutterStyle.Render("↓ "))
		case s == 0 && i == 0 && b.prompt != "":
			out.WriteString(b.gutterStyle.Render(b.prompt))
		case s == 0:
			out.WriteString("  ")
		default:
			out.WriteString(b.gutterStyle.Render("↪ "))
		}
		if runesOf != i {
			runes, runesOf = []rune(b.lines[i]), i
		}
		end := len(runes)
		if s+1 < len(segs) {
			end = segs[s+1]
		}
		b.drawRow(&out, runes[segs[s]:end], i == b.row && b.focused, segs[s])
		s++
		if s >= len(segs) {
			i, s = i+1, 0
		}
	}
	return out.String()
}

func (b *Buffer) drawRow(out *strings.Builder, runes []rune, cursorLine bool, start int) {
	x := 0
	cursorAt := -1
	if cursorLine && b.col >= start && b.col <= start+len(runes) {
		cursorAt = b.col - start
		// The cursor at a wrapped row's end belongs to the next row.
		if segs := b.segments(b.row); cursorAt == len(runes) && b.rowOf(start)+1 < len(segs) {
			cursorAt = -1
		}
	}
	for j, r := range runes {
		w := b.cellWidth(r, x)
		text := string(r)
		if r == '\t' {
			text = strings.Repeat(" ", w)
		} else if b.isMarker(r) {
			text = b.markerLabel(r) // the cursor on it marks it whole
		} else if g, ok := common.Glyph(r); ok {
			// A control character in a file (an escape sequence in a
			// hostile AGENTS.md) is shown, never sent to the terminal.
			text = string(g)
		}
		if j == cursorAt {
			out.WriteString(b.cursorStyle.Render(text))
		} else {
			out.WriteString(text)
		}
		x += w
	}
	if cursorAt == len(runes) {
		out.WriteString(b.cursorStyle.Render(" "))
	}
}

// rowOf returns which segment of the cursor line starts at rune start.
func (b *Buffer) rowOf(start int) int {
	for i, s := range b.segments(b.row) {
		if s == start {
			return i
		}
	}
	return 0
}

package editor

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rows returns how many screen rows the text takes at the current width,
// counting no further than limit: an input sizing itself to its text pays
// for the rows it can show, not for a 5,000-line paste.
func (b *Buffer) Rows(limit int) int {
	n := 0
	for i := range b.lines {
		n += len(b.segments(i))
		if n >= limit {
			return limit
		}
	}
	return n
}

// MoveToEnd puts the cursor after the last character.
func (b *Buffer) MoveToEnd() {
	b.row = len(b.lines) - 1
	b.col = utf8.RuneCountInString(b.lines[b.row])
	b.hist.last = editNone
	b.syncX()
	b.scrollToCursor()
}

// WordBefore returns the word that ends at the cursor: the characters
// back to the previous space or line start ("@src/ma", "/mod").
func (b *Buffer) WordBefore() string {
	r := []rune(b.lines[b.row])
	c := min(b.col, len(r))
	start := c
	for start > 0 && !unicode.IsSpace(r[start-1]) {
		start--
	}
	return string(r[start:c])
}

// ReplaceWordBefore replaces the word WordBefore returns with s, as one
// edit that ctrl+z undoes, and leaves the cursor after s.
func (b *Buffer) ReplaceWordBefore(s string) {
	b.checkpoint(editOther)
	w := utf8.RuneCountInString(b.WordBefore())
	line := b.lines[b.row]
	from, to := byteOffset(line, b.col-w), byteOffset(line, b.col)
	b.lines[b.row] = line[:from] + line[to:]
	b.wraps[b.row] = nil
	b.bytes -= to - from
	b.col -= w
	b.insert(strings.ReplaceAll(s, "\n", " "))
	b.syncX()
	b.scrollToCursor()
}

// SetCursor moves the cursor to line row, rune col, clamped to the text.
func (b *Buffer) SetCursor(row, col int) {
	b.row = min(max(row, 0), len(b.lines)-1)
	b.col = min(max(col, 0), utf8.RuneCountInString(b.lines[b.row]))
	b.hist.last = editNone
	b.syncX()
	b.scrollToCursor()
}

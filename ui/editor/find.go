package editor

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Find moves the cursor to the next match of query after the cursor
// (forward) or the previous one before it, wrapping around the text, and
// reports whether there is a match. The search ignores case unless the
// query has an upper-case letter ("smart case", as in vim and less).
// Queries do not span lines.
func (b *Buffer) Find(query string, forward bool) bool { return b.find(query, forward, false) }

// FindHere is Find forward that also takes a match starting at the
// cursor, for a search that narrows as its query is typed.
func (b *Buffer) FindHere(query string) bool { return b.find(query, true, true) }

func (b *Buffer) find(query string, forward, here bool) bool {
	if query == "" {
		return false
	}
	fold := !hasUpper(query)
	if fold {
		query = strings.ToLower(query)
	}
	n := len(b.lines)
	for step := 0; step <= n; step++ {
		var i int
		if forward {
			i = (b.row + step) % n
		} else {
			i = ((b.row-step)%n + n) % n
		}
		line := b.lines[i]
		if fold {
			line = strings.ToLower(line) // may move bytes: offsets are taken in runes
		}
		if col, ok := matchIn(line, query, i == b.row, step, b.col, forward, here); ok {
			b.row, b.col = i, col
			b.hist.last = editNone
			b.syncX()
			b.scrollToCursor()
			return true
		}
	}
	return false
}

// matchIn returns the rune column of the match in line to move to. On the
// cursor's own line the first visit (step 0) looks only past the cursor
// (forward) or before it (backward); the last visit (after wrapping
// round) looks at the other part.
func matchIn(line, query string, cursorLine bool, step, col int, forward, here bool) (int, bool) {
	var cols []int
	for off := 0; ; {
		j := strings.Index(line[off:], query)
		if j < 0 {
			break
		}
		cols = append(cols, utf8.RuneCountInString(line[:off+j]))
		off += j + max(len(query), 1)
	}
	if forward {
		for _, c := range cols {
			if !cursorLine || (step == 0 && (c > col || here && c == col)) || (step > 0 && c <= col) {
				return c, true
			}
		}
		return 0, false
	}
	for k := len(cols) - 1; k >= 0; k-- {
		c := cols[k]
		if !cursorLine || (step == 0 && c < col) || (step > 0 && c >= col) {
			return c, true
		}
	}
	return 0, false
}

// Count returns how many times query occurs (smart case, as Find).
func (b *Buffer) Count(query string) int {
	if query == "" {
		return 0
	}
	fold := !hasUpper(query)
	if fold {
		query = strings.ToLower(query)
	}
	n := 0
	for _, l := range b.lines {
		if fold {
			l = strings.ToLower(l)
		}
		n += strings.Count(l, query)
	}
	return n
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

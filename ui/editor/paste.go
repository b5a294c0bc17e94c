package editor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/ui/common"
)

// A long paste collapses, as pi's editor collapses it: the input shows one
// marker, "[paste #1 +200 lines]", and what is sent is the whole text.
// The marker is one rune of the text, from Unicode's last private use
// plane, which no keyboard types: moving, deleting, wrapping, undo and
// redo treat it as one character with no extra work, and the text it
// stands for stays in the buffer's table for the buffer's life, so an
// undone deletion or a recalled message brings its paste back. Only a
// buffer that collapses pastes (CollapsePastes, the chat's input) has
// such runes: there, a rune of that plane typed or pasted in is stored
// as U+FFFD, so it can never pass for a marker.
const (
	pasteFirst rune = 0x100000
	pasteLast  rune = 0x10FFFD
)

// A paste collapses when it has more than collapseLines lines or more
// than collapseChars characters: pi's thresholds.
const (
	collapseLines = 10
	collapseChars = 1000
)

// paste is one collapsed paste: its text, the marker shown for it and
// the marker's number in it ("#1").
type paste struct {
	text, label string
	n           int
}

// pastes is the table of a buffer's collapsed pastes by marker rune.
type pastes struct {
	on   bool
	byID map[rune]paste
	next rune // the marker rune the next paste gets
}

// CollapsePastes makes long pastes collapse into markers (the chat's
// input); other buffers keep every paste inline.
func (b *Buffer) CollapsePastes() {
	b.pastes.on = true
	if b.pastes.byID == nil {
		b.pastes.byID = map[rune]paste{}
		b.pastes.next = pasteFirst
	}
}

// isMarker reports whether r is the marker of a collapsed paste.
func (b *Buffer) isMarker(r rune) bool {
	if r < pasteFirst || !b.pastes.on {
		return false
	}
	_, ok := b.pastes.byID[r]
	return ok
}

// pasteLines counts the lines of s as a person does: a final newline ends
// the last line rather than starting another.
func pasteLines(s string) int {
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// long reports whether a cleaned paste is long enough to collapse.
func long(s string) bool {
	return pasteLines(s) > collapseLines || utf8.RuneCountInString(s) > collapseChars
}

// Collapses reports whether pasting s collapses it into a marker.
func (b *Buffer) Collapses(s string) bool {
	return b.pastes.on && b.pastes.next <= pasteLast && long(b.clean(s))
}

// paste inserts a bracketed paste: collapsed into a marker when it is
// long and the buffer collapses pastes (Collapses), else inline.
func (b *Buffer) paste(s string) {
	s = b.clean(s)
	if !b.pastes.on || !long(s) || b.pastes.next > pasteLast {
		b.checkpoint(editOther)
		b.insertClean(s)
		return
	}
	lines, chars := pasteLines(s), utf8.RuneCountInString(s)
	n := 1 // the marker's number: after those in the text now
	for _, l := range b.lines {
		for _, r := range l {
			if b.isMarker(r) {
				n = max(n, b.pastes.byID[r].n+1)
			}
		}
	}
	label := fmt.Sprintf("[paste #%d %s chars]", n, common.Group(chars))
	if lines > collapseLines {
		label = fmt.Sprintf("[paste #%d +%s lines]", n, common.Group(lines))
	}
	id := b.pastes.next
	b.pastes.next++
	b.pastes.byID[id] = paste{text: s, label: label, n: n}
	b.checkpoint(editOther)
	b.insertClean(string(id))
}

// ExpandPaste replaces the marker under the cursor, or else the one just
// before it (where the cursor is after a paste), with the text it stands
// for, as one edit that ctrl+z undoes; the cursor goes to the text's
// start, to read it from the top. It reports whether there was a marker.
func (b *Buffer) ExpandPaste() bool {
	r := []rune(b.lines[b.row])
	at := b.col
	if at >= len(r) || !b.isMarker(r[at]) {
		at--
	}
	if at < 0 || at >= len(r) || !b.isMarker(r[at]) {
		return false
	}
	b.checkpoint(editOther)
	row, line := b.row, b.lines[b.row]
	from := byteOffset(line, at)
	size := utf8.RuneLen(r[at])
	b.lines[row] = line[:from] + line[from+size:]
	b.wraps[row] = nil
	b.bytes -= size
	b.col = at
	b.insertClean(b.pastes.byID[r[at]].text)
	b.row, b.col = row, at
	b.hist.last = editNone
	b.syncX()
	b.scrollToCursor()
	return true
}

// Expanded returns the text with every marker replaced by the paste it
// stands for: what is sent.
func (b *Buffer) Expanded() string {
	v := b.Value()
	if len(b.pastes.byID) == 0 {
		return v
	}
	var out strings.Builder
	for _, r := range v {
		if b.isMarker(r) {
			out.WriteString(b.pastes.byID[r].text)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// Collapse returns s, text from elsewhere (a message sent before, queued,
// or refused and given back), ready to be set in this buffer: the text of
// each of its pastes found in s becomes that paste's marker again, and a
// marker rune of no paste of its becomes U+FFFD.
func (b *Buffer) Collapse(s string) string {
	if !b.pastes.on {
		return s
	}
	s = strings.Map(func(r rune) rune {
		if r >= pasteFirst && r <= pasteLast && !b.isMarker(r) {
			return utf8.RuneError
		}
		return r
	}, s)
	// The longest first: a paste that holds another collapses whole.
	ids := make([]rune, 0, len(b.pastes.byID))
	for id, p := range b.pastes.byID {
		if len(p.text) <= len(s) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y rune) int {
		return cmp.Or(len(b.pastes.byID[y].text)-len(b.pastes.byID[x].text), int(x-y))
	})
	for _, id := range ids {
		if t := b.pastes.byID[id].text; strings.Contains(s, t) {
			s = strings.ReplaceAll(s, t, string(id))
		}
	}
	return s
}

// markerLabel is the marker drawn for r, cut to the text's width.
func (b *Buffer) markerLabel(r rune) string {
	l := b.pastes.byID[r].label
	if len(l) > b.width {
		l = l[:b.width] // a label is ASCII
	}
	return l
}

package editor

import "unicode/utf8"

// maxUndo bounds the undo history. A step holds the line slice (string
// headers; the strings themselves are shared), so even a 5,000-line text
// costs 80 KB a step.
const maxUndo = 200

// editKind groups keystrokes into undo steps: a run of typed characters
// or of deletions is one step, as in most editors; anything else (a
// paste, a newline, ctrl+k) is a step of its own.
type editKind int

const (
	editNone editKind = iota
	editTyping
	editDeleting
	editOther
)

// snapshot is the text and cursor before an edit.
type snapshot struct {
	lines    []string
	bytes    int
	row, col int
}

// history is the buffer's undo and redo stacks.
type history struct {
	undo, redo []snapshot
	last       editKind // the kind of the edit being coalesced
}

func (b *Buffer) snap() snapshot {
	return snapshot{lines: append([]string(nil), b.lines...), bytes: b.bytes, row: b.row, col: b.col}
}

// checkpoint records the state before an edit of kind k, unless the edit
// continues the previous one (more typing, more deleting).
func (b *Buffer) checkpoint(k editKind) {
	h := &b.hist
	if k == h.last && k != editOther {
		return
	}
	h.last = k
	h.redo = nil
	if len(h.undo) == maxUndo {
		h.undo = append(h.undo[:0], h.undo[1:]...)
	}
	h.undo = append(h.undo, b.snap())
}

// Undo restores the text before the last edit; it reports whether there
// was one.
func (b *Buffer) Undo() bool { return b.travel(&b.hist.undo, &b.hist.redo) }

// Redo applies again the last edit undone; it reports whether there was
// one.
func (b *Buffer) Redo() bool { return b.travel(&b.hist.redo, &b.hist.undo) }

// travel restores the top of from, keeping the present state on to.
func (b *Buffer) travel(from, to *[]snapshot) bool {
	if len(*from) == 0 {
		return false
	}
	s := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, b.snap())
	b.restore(s)
	return true
}

// restore takes over s (it was popped, so nothing else holds its lines).
func (b *Buffer) restore(s snapshot) {
	b.lines, b.bytes = s.lines, s.bytes
	b.wraps = make([][]int, len(b.lines))
	b.row = min(s.row, len(b.lines)-1)
	b.col = min(s.col, utf8.RuneCountInString(b.lines[b.row]))
	b.hist.last = editNone
	b.syncX()
	b.scrollToCursor()
}

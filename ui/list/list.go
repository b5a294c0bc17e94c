// Package list is the cursor and scrolling that every list of the
// terminal UI shares: the Projects tab, Settings, the memory editor, the
// model and group pickers, menus, the Session tab's sessions list, the
// tree page and the chat's completion menu. It moves a cursor over rows, skips the
// rows it may not rest on (section headings), keeps the cursor on screen
// in a window of lines (rows may take more than one), and filters through
// a hook. It draws nothing: each screen draws the rows Window names, so
// what a list looks like stays its own.
package list

import (
	"iter"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// List is a cursor over rows of T in a window of lines. The zero value
// is an empty list with no keys; New gives one its keys.
type List[T any] struct {
	// Keys are the moving keys Update handles.
	Keys KeyMap
	// Wrap moves from the first row up to the last and from the last down
	// to the first, as a menu does; page and home/end keys never wrap.
	Wrap bool
	// Height is how many lines a row takes; nil means one. It may depend
	// on the cursor (a selected row that shows a second line): scrolling
	// asks it after the cursor has moved, and SetLines, called before
	// each frame is drawn, scrolls again for heights that changed.
	Height func(T) int
	// Selectable tells whether the cursor may rest on a row; nil means on
	// every row. The rows it may not are headings: scrolling up to a row
	// shows the heading right above it, and the first selectable row shows
	// everything above it.
	Selectable func(T) bool

	items []T
	// match is the filter hook; shown are the indices into items it lets
	// through (nil: no filter, every item shows).
	match func(T) bool
	shown []int

	cursor int // index into the rows shown; -1 when none is selectable
	top    int // first row of the window
	lines  int // lines in the window; 0 until SetLines
}

// New returns an empty list moved by keys.
func New[T any](keys KeyMap) List[T] { return List[T]{Keys: keys} }

// SetItems replaces the rows. The cursor keeps its index when that row is
// still there and may rest on it, else the nearest row that it may rest
// on; Select or First put it elsewhere.
func (l *List[T]) SetItems(items []T) {
	l.items = items
	l.refilter()
	l.settle(max(l.cursor, 0))
}

// Items returns every row, the filter notwithstanding.
func (l *List[T]) Items() []T { return l.items }

// SetFilter sets the filter hook: only the rows match accepts show (nil
// shows all). The cursor stays on the row it was on when that row still
// shows, else it goes to the first row.
func (l *List[T]) SetFilter(match func(T) bool) {
	at := l.itemIndex(l.cursor)
	l.match = match
	l.refilter()
	l.cursor = -1
	if at >= 0 {
		for i := range l.Len() {
			if l.itemIndex(i) == at {
				l.settle(i)
				return
			}
		}
	}
	l.First()
}

func (l *List[T]) refilter() {
	if l.match == nil {
		l.shown = nil
		return
	}
	l.shown = l.shown[:0]
	for i, it := range l.items {
		if l.match(it) {
			l.shown = append(l.shown, i)
		}
	}
}

// itemIndex is the index into items of shown row i (-1 when out of range).
func (l *List[T]) itemIndex(i int) int {
	switch {
	case i < 0 || i >= l.Len():
		return -1
	case l.match == nil:
		return i
	}
	return l.shown[i]
}

// Len is how many rows show.
func (l *List[T]) Len() int {
	if l.match == nil {
		return len(l.items)
	}
	return len(l.shown)
}

// Row returns shown row i.
func (l *List[T]) Row(i int) T { return l.items[l.itemIndex(i)] }

// Cursor is the index of the row under the cursor among the rows shown,
// or -1 when no row may take it.
func (l *List[T]) Cursor() int {
	if l.cursor >= l.Len() {
		return -1
	}
	return l.cursor
}

// Selected returns the row under the cursor.
func (l *List[T]) Selected() (T, bool) {
	if c := l.Cursor(); c >= 0 {
		return l.Row(c), true
	}
	var zero T
	return zero, false
}

// Select puts the cursor on the first row shown that pick accepts and
// reports whether there was one; otherwise the cursor stays.
func (l *List[T]) Select(pick func(T) bool) bool {
	for i := range l.Len() {
		if l.selectable(i) && pick(l.Row(i)) {
			l.cursor = i
			l.reveal()
			return true
		}
	}
	return false
}

// SetCursor puts the cursor on row i, or the nearest row it may rest on.
func (l *List[T]) SetCursor(i int) { l.settle(i) }

// First puts the cursor on the first row it may rest on.
func (l *List[T]) First() { l.cursor = -1; l.settle(0) }

// Last puts the cursor on the last row it may rest on.
func (l *List[T]) Last() {
	l.cursor = -1
	for i := l.Len() - 1; i >= 0; i-- {
		if l.selectable(i) {
			l.cursor = i
			break
		}
	}
	l.reveal()
}

// settle puts the cursor on row i if it may rest there, else on the
// next such row below, else above; -1 when there is none.
func (l *List[T]) settle(i int) {
	n := l.Len()
	i = min(max(i, 0), max(n-1, 0))
	l.cursor = -1
	for j := i; j < n; j++ {
		if l.selectable(j) {
			l.cursor = j
			break
		}
	}
	for j := i - 1; l.cursor < 0 && j >= 0; j-- {
		if l.selectable(j) {
			l.cursor = j
		}
	}
	l.reveal()
}

func (l *List[T]) selectable(i int) bool {
	return l.Selectable == nil || l.Selectable(l.Row(i))
}

func (l *List[T]) height(i int) int {
	if l.Height == nil {
		return 1
	}
	return max(l.Height(l.Row(i)), 1)
}

// Move moves the cursor n selectable rows down (up when n < 0), stopping
// at the ends; with Wrap, one step past an end goes round.
func (l *List[T]) Move(n int) {
	c := l.Cursor()
	if c < 0 {
		return
	}
	step := sign(n)
	if l.Wrap && n == step && l.next(c, step) < 0 {
		if step > 0 {
			l.First()
		} else {
			l.Last()
		}
		return
	}
	for ; n != 0; n -= step {
		next := l.next(c, step)
		if next < 0 {
			break
		}
		c = next
	}
	l.cursor = c
	l.reveal()
}

// sign is the step towards n: -1 up, 1 down.
func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}

// next is the first selectable row after c in direction step, or -1.
func (l *List[T]) next(c, step int) int {
	for i := c + step; i >= 0 && i < l.Len(); i += step {
		if l.selectable(i) {
			return i
		}
	}
	return -1
}

// Page moves the cursor about a window down (up when dir < 0): to the
// farthest selectable row within the window's lines less one, so one row
// of context stays; at least one row.
func (l *List[T]) Page(dir int) {
	c := l.Cursor()
	if c < 0 {
		return
	}
	step := sign(dir)
	budget := max(l.lines-1, 1)
	target, used := c, 0
	for i := c + step; i >= 0 && i < l.Len(); i += step {
		used += l.height(i)
		if used > budget && target != c {
			break
		}
		if l.selectable(i) {
			target = i
		}
		if used >= budget && target != c {
			break
		}
	}
	l.cursor = target
	l.reveal()
}

// Update handles a moving key and reports whether msg was one.
func (l *List[T]) Update(msg tea.KeyMsg) bool {
	k := l.Keys
	switch {
	case key.Matches(msg, k.Up):
		l.Move(-1)
	case key.Matches(msg, k.Down):
		l.Move(1)
	case key.Matches(msg, k.PageUp):
		l.Page(-1)
	case key.Matches(msg, k.PageDown):
		l.Page(1)
	case key.Matches(msg, k.Top):
		l.First()
	case key.Matches(msg, k.Bottom):
		l.Last()
	default:
		return false
	}
	return true
}

// SetLines sets how many lines the window holds and scrolls so the
// cursor stays in it.
func (l *List[T]) SetLines(n int) {
	l.lines = max(n, 1)
	l.reveal()
}

// Lines is how many lines the window holds.
func (l *List[T]) Lines() int { return l.lines }

// Top is the first row of the window.
func (l *List[T]) Top() int { return l.top }

// reveal scrolls as little as it can to keep the cursor in the window,
// with the heading right above it (everything above it for the first
// row the cursor may rest on, and everything below it that the window
// holds for the last: text after the last setting, a warning), and
// without leaving lines empty below the last row while rows above are
// hidden.
func (l *List[T]) reveal() {
	n := l.Len()
	c := l.Cursor()
	if c < 0 {
		l.top = 0
		return
	}
	if l.lines <= 0 {
		l.top = min(l.top, c) // no window yet: only never below the cursor
		return
	}
	start := c
	switch {
	case l.next(c, -1) < 0:
		start = 0 // the first row the cursor may rest on shows what is above it
	case c > 0 && !l.selectable(c-1):
		start = c - 1 // a heading shows with its first row
	}
	l.top = min(l.top, start)
	// Fill the window: rows above come back into view while the rows from
	// there to the last one fit.
	for l.top > 0 && l.fits(l.top-1, n-1) {
		l.top--
	}
	// The last row the cursor may rest on shows the rows below it, which
	// nothing else would scroll to, as far as the cursor stays on top.
	if l.next(c, 1) < 0 && !l.fits(l.top, n-1) {
		l.top = max(l.top, min(c, l.tailFrom()))
	}
	// The cursor must fit, with the rows wanted above it while they do.
	l.top = max(l.top, l.fitFrom(c))
}

// fitFrom is the highest row from which the rows down to c fit in the
// window (c when c alone does not). It walks up from c, so pressing end
// in a long list costs what the window holds, not the rows above it.
func (l *List[T]) fitFrom(c int) int {
	left, s := l.lines-l.height(c), c
	for s > 0 {
		h := l.height(s - 1)
		if h > left {
			break
		}
		left -= h
		s--
	}
	return s
}

// tailFrom is the highest row from which the rows down to the last fit
// in the window (the last row when it alone does not).
func (l *List[T]) tailFrom() int {
	last := l.Len() - 1
	left, s := l.lines-l.height(last), last
	for s > 0 && l.height(s-1) <= left {
		left -= l.height(s - 1)
		s--
	}
	return s
}

// fits reports whether rows from..to fit in the window's lines. It stops
// counting once they do not, so a long list costs what the window holds.
func (l *List[T]) fits(from, to int) bool {
	left := l.lines
	for i := from; i <= to; i++ {
		if left -= l.height(i); left < 0 {
			return false
		}
	}
	return true
}

// Window returns the rows the window shows, top to bottom: from the top
// row, every row whose lines still fit. A top row taller than the whole
// window is returned all the same (the screen cuts it): the cursor is
// never on a row that is not drawn.
func (l *List[T]) Window() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		left := l.lines
		if left <= 0 {
			left = int(^uint(0) >> 1) // no window yet: every row
		}
		for i := l.top; i < l.Len(); i++ {
			h := l.height(i)
			if h > left && i > l.top {
				return
			}
			left -= h
			if !yield(i, l.Row(i)) {
				return
			}
		}
	}
}

package list

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// BenchmarkMenuKeystroke is what a completion menu spends in the list on
// one key: its 50 entries replaced, the highlight moved, ten rows drawn.
func BenchmarkMenuKeystroke(b *testing.B) {
	items := make([]string, 50)
	for i := range items {
		items[i] = fmt.Sprint("file", i)
	}
	l := New[string](KeyMap{Up: DefaultKeyMap().Up, Down: DefaultKeyMap().Down})
	l.Wrap = true
	down := tea.KeyMsg{Type: tea.KeyDown}
	b.ReportAllocs()
	for b.Loop() {
		l.SetItems(items)
		l.Update(down)
		l.SetLines(10)
		n := 0
		for range l.Window() {
			n++
		}
		if n != 10 {
			b.Fatalf("the window drew %d rows", n)
		}
	}
}

// BenchmarkLongListEnd is pressing end and drawing a window of 40 lines
// in a list of 100,000 rows of one or two lines (a long tree page).
func BenchmarkLongListEnd(b *testing.B) {
	items := make([]row, 100_000)
	for i := range items {
		items[i] = row{name: fmt.Sprint(i), lines: 1 + i%2}
	}
	l := New[row](DefaultKeyMap())
	l.Height = func(r row) int { return r.lines }
	l.SetItems(items)
	l.SetLines(40)
	b.ReportAllocs()
	for b.Loop() {
		l.Last()
		for range l.Window() {
		}
		l.First()
	}
}

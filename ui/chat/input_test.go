package chat

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// BenchmarkInputKeystroke300: one character typed in the middle of a
// 300-line message in the chat input, update and the whole tab's view.
// Target (issue 14): ≤ 1 ms/op.
func BenchmarkInputKeystroke300(b *testing.B) {
	d, _ := benchDeps(b)
	m := newChat(b, d)
	m.sid = "s1"
	m.SetSize(120, 40)
	var text strings.Builder
	for i := range 300 {
		fmt.Fprintf(&text, "line %d of a long message pasted into the chat input, with some words\n", i)
	}
	m.in.input.SetValue(text.String())
	m.in.input.SetCursor(150, 10)
	m.in.input.fit(m.width, m.height)
	_ = m.View()
	// A character, then backspace: the line keeps its length however
	// many keystrokes the benchmark makes.
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'x'}}, {Type: tea.KeyBackspace}}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		m.Update(keys[i%2])
		_ = m.View()
		i++
	}
}

package chat

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/filesearch/indextest"
	"github.com/pi-tui/pi-tui/core/registry"
)

// BenchmarkAtMenuKeystroke: in a 100,000-file git checkout, with the @
// menu open, type "and" and erase it again, drawing a frame after every
// key (six keys an op; erasing widens the query, the dearer direction).
// Target (issue 14): ≤ 5 ms a key.
func BenchmarkAtMenuKeystroke(b *testing.B) {
	d, _ := benchDeps(b)
	root := b.TempDir()
	if err := indextest.Checkout(root, 100_000); err != nil {
		b.Fatal(err)
	}
	m := newChat(b, d)
	m.SetProject(registry.Project{Name: "p", Root: root})
	m.sid = "s1"
	m.SetSize(120, 40)
	key := func(k tea.KeyMsg) {
		if cmd := m.Update(k); cmd != nil {
			if msg, ok := cmd().(filesMsg); ok {
				m.Update(msg)
			}
		}
		_ = m.View()
	}
	for _, r := range "@h" {
		key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	for m.in.comp.matcher.List().Partial() { // a large checkout's list comes in parts: take the whole
		l, err := m.in.comp.cache.AddUntracked(b.Context(), m.in.comp.matcher.List())
		if err != nil {
			b.Fatal(err)
		}
		m.Update(filesMsg{root: root, list: l, walked: true})
	}
	if !strings.Contains(m.View(), "packages/api/handler.go") {
		b.Fatalf("the menu does not show the handler:\n%s", m.View())
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range "and" {
			key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
		for range 3 {
			key(tea.KeyMsg{Type: tea.KeyBackspace})
		}
	}
}

package editor

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/agentsmd"
	"github.com/pi-tui/pi-tui/ui/common"
)

// doc32k is a 32 KiB, 800-line markdown file: the largest AGENTS.md the
// chain budget can hold whole.
func doc32k() string {
	var b strings.Builder
	for i := 0; b.Len() < 32*1024-41; i++ {
		if i%20 == 0 {
			b.WriteString("## Section heading number here\n")
			continue
		}
		b.WriteString("- a rule line with some words in it ok\n")
	}
	return b.String()
}

// BenchmarkStockTextareaKeystroke is the baseline: the stock bubbles
// textarea with a 32 KiB, 800-line file, one keystroke, update and view.
func BenchmarkStockTextareaKeystroke(b *testing.B) {
	ta := textarea.New()
	ta.MaxHeight = 0
	ta.CharLimit = 0
	ta.SetWidth(78)
	ta.SetHeight(20)
	ta.SetValue(doc32k())
	ta.Focus()
	key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}}
	b.ReportAllocs()
	for b.Loop() {
		ta, _ = ta.Update(key)
		_ = ta.View()
	}
}

// BenchmarkBufferKeystroke is the same keystroke in this package's buffer.
// Target: ≤ 4 ms/op.
func BenchmarkBufferKeystroke(b *testing.B) {
	buf := New(lipgloss.NewStyle().Reverse(true), lipgloss.NewStyle())
	buf.SetSize(80, 20)
	buf.SetValue(doc32k())
	buf.moveVert(400) // mid-file
	key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}}
	b.ReportAllocs()
	for b.Loop() {
		buf.Update(key)
		_ = buf.View()
	}
}

// BenchmarkPageKeystroke is a keystroke in the AGENTS.md editor page as
// the user sees it: buffer, header, meter and key hints, update and view.
// Target: ≤ 4 ms/op.
func BenchmarkPageKeystroke(b *testing.B) {
	st := common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard)))
	p := NewPage(Config{Dir: b.TempDir(), Label: "AGENTS.md", Project: true}, st)
	p.Update(pageLoadedMsg{page: p, doc: agentsmd.Doc{Content: doc32k(), Exists: true}})
	p.View(120, 40)
	p.buf.moveVert(400)
	key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}}
	b.ReportAllocs()
	for b.Loop() {
		p.Update(key)
		_ = p.View(120, 40)
	}
}

package dialog

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/ui/common"
)

// A prompt whose title and value come from a file or a model (a session
// named with an escape sequence) draws them as text: no control byte
// reaches the terminal.
func TestPromptShowsControlsAsText(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ui := common.NewUI(common.NewStyles(r))
	p := NewPrompt(ui, "Rename \x1b]0;pwned\a", "", "name\x1b[2J\nnext", nil, nil)
	view := p.View(80, 20)
	if strings.ContainsAny(view, "\a") || strings.Contains(view, "\x1b]") || strings.Contains(view, "\x1b[2J") {
		t.Errorf("a control reached the view:\n%q", view)
	}
	if !strings.Contains(view, `\x1b]0;pwned`) || !strings.Contains(view, `name\x1b[2J⏎next`) {
		t.Errorf("the controls are not shown as text:\n%q", view)
	}
}

// A menu's items answer to the keys shown beside them, even k and q;
// the arrows still move, wrapping round, and enter runs the highlighted
// item. A menu taller than the screen scrolls to keep it in view.
func TestMenuKeys(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ui := common.NewUI(common.NewStyles(r))
	ran := ""
	var items []Item
	for _, k := range strings.Split("123456789abcdefghijklmnopqrstuvwxyz", "") {
		items = append(items, Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, "model "+k)), Run: func() tea.Cmd { ran = k; return nil }})
	}
	press := func(m *Menu, msgs ...tea.KeyMsg) {
		for _, msg := range msgs {
			m.Update(msg)
		}
	}
	for _, k := range []string{"k", "q", "j"} {
		m := NewMenu(ui, "Model", items)
		press(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		if ran != k {
			t.Errorf("%s ran %q", k, ran)
		}
	}
	m := NewMenu(ui, "Model", items)
	press(m, tea.KeyMsg{Type: tea.KeyUp}) // round to the last
	view := m.View(80, 16)
	if !strings.Contains(view, "› z  model z") || strings.Contains(view, "model 1") {
		t.Errorf("up from the first item: the last is not highlighted in view:\n%s", view)
	}
	press(m, tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyEnter})
	if ran != "2" {
		t.Errorf("enter ran %q, want 2", ran)
	}
}

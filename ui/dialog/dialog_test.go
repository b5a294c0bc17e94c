package dialog

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
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

// Tilde writes the home folder as ~ where text names it or a path in it,
// and leaves a folder that only starts like it.
func TestTilde(t *testing.T) {
	for in, want := range map[string]string{
		"/home/ann/src/api/AGENTS.md stays":  "~/src/api/AGENTS.md stays",
		"the folder /home/ann is broad.":     "the folder ~ is broad.",
		"/home/anne/x and /home/ann.old/y":   "/home/anne/x and /home/ann.old/y",
		"in /home/ann: and /home/ann/a, too": "in ~: and ~/a, too",
	} {
		if got := Tilde(in, "/home/ann/"); got != want {
			t.Errorf("Tilde(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Tilde("/x", ""); got != "/x" {
		t.Errorf("no home: %q", got)
	}
}

// A menu item longer than the menu widens it up to the screen, and past
// that wraps under its own text, never back under its key; the menu
// stays inside the screen and keeps the highlighted item in view.
func TestMenuWrapsLongItems(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ui := common.NewUI(common.NewStyles(r))
	long := "anthropic/claude-sonnet-4-5 (current) with a description long enough to wrap at eighty columns"
	var items []Item
	for _, k := range []string{"1", "2", "3"} {
		items = append(items, Item{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, long)), Run: func() tea.Cmd { return nil }})
	}
	m := NewMenu(ui, "Model", items)
	m.Update(tea.KeyMsg{Type: tea.KeyUp}) // to the last
	view := m.View(80, 10)
	lines := strings.Split(view, "\n")
	if len(lines) > 10 {
		t.Errorf("%d lines in 10:\n%s", len(lines), view)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line is %d wide:\n%s", w, view)
		}
		if strings.HasPrefix(l, "│ ") && !strings.HasPrefix(l, "│ ›") && !strings.HasPrefix(l, "│   ") && !strings.HasPrefix(l, "│ Model") && strings.TrimSpace(strings.Trim(l, "│")) != "" && !strings.Contains(l, "esc close") {
			t.Errorf("a line runs back under the keys: %q\n%s", l, view)
		}
	}
	if !strings.Contains(view, "› 3") || !strings.Contains(view, "     enough to wrap at eighty columns") {
		t.Errorf("the last item is not in view, wrapped under its text:\n%s", view)
	}
}

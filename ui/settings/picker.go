package settings

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/ui/common"
)

// pickerKeys are the model picker's keys; the same table drives the keys
// and the help.
type pickerKeys struct {
	Up, Down, PageUp, PageDown, Choose, Close key.Binding
}

func newPickerKeys() pickerKeys {
	return pickerKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Choose:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "make it the default")),
		Close:    key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}
}

// modelPicker lists every model: those that can be used now (their key
// is there) first, then the others, each saying which key it needs.
type modelPicker struct {
	st      *common.UI
	keys    pickerKeys
	models  []provider.Listed
	current string // PROVIDER/ID of the default model
	cursor  int
	top     int // first visible row
	height  int // rows shown at the last View
	choose  func(provider.Listed) tea.Cmd
}

func newModelPicker(st *common.UI, models []provider.Listed, cur instructions.Model, choose func(provider.Listed) tea.Cmd) *modelPicker {
	p := &modelPicker{st: st, keys: newPickerKeys(), models: models, choose: choose, current: cur.Provider + "/" + cur.ID}
	for i, m := range models {
		if m.String() == p.current {
			p.cursor = i
		}
	}
	return p
}

func (p *modelPicker) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	page := max(p.height-1, 1)
	switch {
	case key.Matches(km, p.keys.Close):
		return p, p.st.Close(p)
	case len(p.models) == 0:
		return p, nil
	case key.Matches(km, p.keys.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(km, p.keys.Down):
		p.cursor = min(p.cursor+1, len(p.models)-1)
	case key.Matches(km, p.keys.PageUp):
		p.cursor = max(p.cursor-page, 0)
	case key.Matches(km, p.keys.PageDown):
		p.cursor = min(p.cursor+page, len(p.models)-1)
	case key.Matches(km, p.keys.Choose):
		p.st.Close(p)
		return p, p.choose(p.models[p.cursor])
	}
	return p, nil
}

// rows draws every line of the list; index[i] is the row of model i.
func (p *modelPicker) rows(width int) (rows []string, index []int) {
	st := p.st
	usable := 0
	for _, m := range p.models {
		if m.Usable {
			usable++
		}
	}
	index = make([]int, len(p.models))
	for i, m := range p.models {
		switch {
		case i == 0 && m.Usable:
			rows = append(rows, st.Section.Render(fmt.Sprintf("Ready to use (%d)", usable)))
		case i == 0 && !m.Usable:
			rows = append(rows, st.Dim.Render("No model can be used yet: each needs the key named beside it."))
		}
		if !m.Usable && (i == 0 || p.models[i-1].Usable) {
			rows = append(rows, st.Section.Render(fmt.Sprintf("Need a key (%d)", len(p.models)-usable)))
		}
		line := m.String()
		if m.Name != "" && m.Name != m.ID {
			line += "  " + common.VisibleLine(m.Name)
		}
		if m.String() == p.current {
			line += "  (current)"
		}
		if !m.Usable {
			line += " — needs " + m.Need
		}
		line = ansi.Truncate(line, max(width-4, 10), "…")
		index[i] = len(rows)
		switch {
		case i == p.cursor:
			rows = append(rows, st.Selected.Render("› "+line))
		case m.Usable:
			rows = append(rows, "  "+line)
		default:
			rows = append(rows, "  "+st.Dim.Render(line))
		}
	}
	return rows, index
}

func (p *modelPicker) View(width, height int) string {
	var b strings.Builder
	b.WriteString(p.st.Title.Render("Default model") + p.st.Dim.Render("  ↑/↓ move · enter choose · esc close") + "\n\n")
	if len(p.models) == 0 {
		b.WriteString("No models are known.")
		return b.String()
	}
	rows, index := p.rows(width)
	p.height = max(height-4, 3)
	at := index[p.cursor]
	if at < p.top {
		p.top = at
	}
	if at >= p.top+p.height {
		p.top = at - p.height + 1
	}
	if p.cursor == 0 {
		p.top = 0 // keep the first heading in view
	}
	end := min(p.top+p.height, len(rows))
	b.WriteString(strings.Join(rows[p.top:end], "\n"))
	if sel := p.models[p.cursor]; !sel.Usable && sel.Hint != "" {
		b.WriteString("\n\n" + p.st.Warn.Render(ansi.Truncate(common.VisibleLine(sel.Hint), max(width-2, 10), "…")))
	}
	return b.String()
}

func (p *modelPicker) Title() string { return "Default model" }
func (p *modelPicker) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{{k.Choose, k.Up, k.Down, k.PageUp, k.PageDown, k.Close}}
}
func (p *modelPicker) FullScreen() bool   { return true }
func (p *modelPicker) Unsaved() string    { return "" }
func (p *modelPicker) CapturesText() bool { return false }

// tildeText writes the home folder as ~ wherever a sentence names a path
// inside it.
func tildeText(s, home string) string {
	if home == "" || home == "/" {
		return s
	}
	return strings.ReplaceAll(s, strings.TrimSuffix(home, "/")+"/", "~/")
}

package settings

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// pickerKeys are the model picker's keys; the same table drives the keys
// and the help.
type pickerKeys struct {
	Nav           list.KeyMap
	Choose, Close key.Binding
}

func newPickerKeys() pickerKeys {
	return pickerKeys{
		Nav:    list.DefaultKeyMap(),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "make it the default")),
		Close:  key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}
}

// modelPicker lists every model: those that can be used now (their key
// is there) first, then the others, each saying which key it needs.
type modelPicker struct {
	common.PageLayer
	st      *common.UI
	keys    pickerKeys
	models  []provider.Listed
	rows    list.List[pickerRow]
	current string // PROVIDER/ID of the default model
	choose  func(provider.Listed) tea.Cmd
	width   int // of the last View: rows wrap at it
}

// pickerRow is one line of the picker: a model (its index into models),
// or a heading (model -1) saying what follows.
type pickerRow struct {
	model   int
	heading string
	dim     bool // a sentence rather than a section heading
}

func newModelPicker(st *common.UI, models []provider.Listed, cur instructions.Model, choose func(provider.Listed) tea.Cmd) *modelPicker {
	p := &modelPicker{st: st, keys: newPickerKeys(), models: models, choose: choose, current: cur.Provider + "/" + cur.ID}
	p.rows = list.New[pickerRow](p.keys.Nav)
	p.rows.Selectable = func(r pickerRow) bool { return r.model >= 0 }
	// A row wraps rather than being cut: it takes the lines it draws in.
	p.rows.Height = func(r pickerRow) int { return strings.Count(p.line(r, false, p.width), "\n") + 1 }
	p.rows.SetItems(pickerRows(models))
	p.rows.Select(func(r pickerRow) bool { return models[r.model].String() == p.current })
	return p
}

// pickerRows lays the models out under their headings.
func pickerRows(models []provider.Listed) []pickerRow {
	usable := 0
	for _, m := range models {
		if m.Usable {
			usable++
		}
	}
	var rows []pickerRow
	for i, m := range models {
		switch {
		case i == 0 && m.Usable:
			rows = append(rows, pickerRow{model: -1, heading: fmt.Sprintf("Ready to use (%d)", usable)})
		case i == 0 && !m.Usable:
			rows = append(rows, pickerRow{model: -1, heading: "No model can be used yet: each needs the key named beside it.", dim: true})
		}
		if !m.Usable && (i == 0 || models[i-1].Usable) {
			rows = append(rows, pickerRow{model: -1, heading: fmt.Sprintf("Need a key (%d)", len(models)-usable)})
		}
		rows = append(rows, pickerRow{model: i})
	}
	return rows
}

func (p *modelPicker) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return p, nil
	}
	switch {
	case key.Matches(km, p.keys.Close):
		return p, p.st.Close(p)
	case p.rows.Update(km):
	case key.Matches(km, p.keys.Choose):
		if r, ok := p.rows.Selected(); ok {
			p.st.Close(p)
			return p, p.choose(p.models[r.model])
		}
	}
	return p, nil
}

// line draws one row at width: a heading, or a model's id, its name,
// "(current)" and the key it needs, wrapped under the id when they do
// not fit. Nothing is cut: the key's name is what the user must know,
// and a name says which of two similar ids is which.
func (p *modelPicker) line(r pickerRow, selected bool, width int) string {
	st := p.st
	switch {
	case r.model < 0 && r.dim:
		return st.Dim.Render(strings.Join(wrapText(r.heading, width), "\n"))
	case r.model < 0:
		return st.Section.Render(strings.Join(wrapText(r.heading, width), "\n"))
	}
	m := p.models[r.model]
	parts := []rowPart{{text: m.String()}}
	if m.Name != "" && m.Name != m.ID {
		for i, word := range strings.Fields(common.VisibleLine(m.Name)) {
			sep := " "
			if i == 0 {
				sep = "  "
			}
			parts = append(parts, rowPart{sep: sep, text: word})
		}
	}
	if m.String() == p.current {
		parts = append(parts, rowPart{sep: "  ", text: "(current)"})
	}
	if !m.Usable {
		parts = append(parts, rowPart{sep: " ", text: "— needs " + m.Need})
	}
	// "› " or two spaces before the first line, four before the others.
	lines := packParts(parts, width-4, width-6)
	for i, l := range lines {
		lead := "    "
		switch {
		case i > 0:
		case selected:
			lead = "› "
		default:
			lead = "  "
		}
		switch {
		case selected:
			lines[i] = st.Selected.Render(lead + l)
		case m.Usable:
			lines[i] = lead + l
		default:
			lines[i] = lead + st.Dim.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

func (p *modelPicker) View(width, height int) string {
	var b strings.Builder
	b.WriteString(p.st.Title.Render("Default model") + p.st.Dim.Render("  ↑/↓ move · enter choose · esc close") + "\n\n")
	if len(p.models) == 0 {
		b.WriteString("No models are known.")
		return b.String()
	}
	// How to get the selected model's key wraps under the list, which
	// gets the lines it leaves.
	var hint []string
	if r, ok := p.rows.Selected(); ok {
		if sel := p.models[r.model]; !sel.Usable && sel.Hint != "" {
			hint = wrapText(common.VisibleLine(sel.Hint), max(width-2, 10))
		}
	}
	p.width = width
	p.rows.SetLines(max(height-3-len(hint), 3))
	var lines []string
	for i, r := range p.rows.Window() {
		lines = append(lines, p.line(r, i == p.rows.Cursor(), width))
	}
	b.WriteString(strings.Join(lines, "\n"))
	if len(hint) > 0 {
		b.WriteString("\n\n" + p.st.Warn.Render(strings.Join(hint, "\n")))
	}
	return b.String()
}

func (p *modelPicker) Title() string { return "Default model" }
func (p *modelPicker) Help() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{append(append([]key.Binding{k.Choose}, k.Nav.Bindings()...), k.Close)}
}

// tildeText writes the home folder as ~ wherever a sentence names a path
// inside it.
func tildeText(s, home string) string {
	if home == "" || home == "/" {
		return s
	}
	return strings.ReplaceAll(s, strings.TrimSuffix(home, "/")+"/", "~/")
}

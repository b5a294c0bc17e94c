package projects

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/list"
)

// groupDialog moves a project into a group: pick an existing group, type
// a new name, or take it out of its group.
type groupDialog struct {
	common.DialogLayer
	m       *Model
	p       registry.Project
	input   textinput.Model
	groups  []string // the groups that exist, by name
	choices list.List[groupChoice]
	keys    groupKeys
}

// groupKeys are the dialog's keys: the list's moving keys are those that
// type nothing, since letters name the group.
type groupKeys struct {
	Nav            list.KeyMap
	Choose, Cancel key.Binding
}

// groupChrome is the dialog's lines besides its choices: the border, the
// title, the field and the hint, with blank lines between.
const groupChrome = 8

// groupChoice is one line of the dialog: a group to move to ("" = none).
type groupChoice struct {
	label, group string
}

func newGroupDialog(m *Model, p registry.Project) *groupDialog {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "type to filter or name a new group"
	in.CharLimit = registry.MaxGroupLen
	in.Focus()
	seen := map[string]bool{}
	var groups []string
	for _, q := range m.all {
		if q.Group != "" && !seen[strings.ToLower(q.Group)] {
			seen[strings.ToLower(q.Group)] = true
			groups = append(groups, q.Group)
		}
	}
	sort.Slice(groups, func(i, j int) bool { return strings.ToLower(groups[i]) < strings.ToLower(groups[j]) })
	d := &groupDialog{m: m, p: p, input: in, groups: groups, keys: groupKeys{
		Nav:    list.TypingKeyMap(),
		Choose: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "move")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
	d.choices = list.New[groupChoice](d.keys.Nav)
	d.choices.SetItems(d.choose())
	return d
}

// choose lists what enter can pick, given what is typed: the groups whose
// name holds it, a new group named so (when no group is), and no group.
func (d *groupDialog) choose() []groupChoice {
	typed := strings.Join(strings.Fields(d.input.Value()), " ")
	var out []groupChoice
	exact := false
	for _, g := range d.groups {
		if strings.EqualFold(g, typed) {
			exact = true
		}
	}
	for _, g := range d.groups {
		if strings.Contains(strings.ToLower(g), strings.ToLower(typed)) {
			label := g
			if strings.EqualFold(g, d.p.Group) {
				label += "  (now)"
			}
			out = append(out, groupChoice{label: label, group: g})
		}
	}
	if typed != "" && !exact {
		out = append(out, groupChoice{label: fmt.Sprintf("New group %q", typed), group: typed})
	}
	if d.p.Group != "" {
		out = append(out, groupChoice{label: "No group", group: ""})
	}
	return out
}

func (d *groupDialog) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return d, nil
	}
	k := d.keys
	switch {
	case key.Matches(km, k.Cancel):
		return d, d.m.st.Close(d)
	case d.choices.Update(km):
		return d, nil
	case key.Matches(km, k.Choose):
		c, ok := d.choices.Selected()
		if !ok {
			return d, nil
		}
		d.m.st.Close(d)
		p := d.p
		return d, d.m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
			g, err := r.SetGroup(ctx, p.ID, c.group)
			if g == "" {
				return "took " + p.Name + " out of its group", err
			}
			return "moved " + p.Name + " to " + g, err
		})()
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(km)
	d.choices.SetItems(d.choose())
	d.choices.First()
	return d, cmd
}

func (d *groupDialog) View(width, height int) string {
	st := d.m.st
	w := min(max(width-4, 30), 60)
	d.input.Width = w - 8
	lines := []string{st.DialogHead.Render("Move " + common.VisibleLine(d.p.Name) + " to a group"), "", d.input.View(), ""}
	if d.choices.Len() == 0 {
		lines = append(lines, st.Dim.Render("No groups yet: type a name."))
	}
	d.choices.SetLines(height - groupChrome)
	for i, c := range d.choices.Window() {
		line := "  " + common.VisibleLine(c.label)
		if i == d.choices.Cursor() {
			line = st.Selected.Render("› " + common.VisibleLine(c.label))
		}
		lines = append(lines, line)
	}
	k := d.keys
	lines = append(lines, "", st.Dim.Render(common.Hints(k.Nav.Up, k.Nav.Down, k.Choose, k.Cancel)))
	return st.Dialog.Width(w).Render(lipgloss.JoinVertical(lipgloss.Left, lines...))
}

func (d *groupDialog) Title() string { return "Move to a group" }
func (d *groupDialog) Help() [][]key.Binding {
	k := d.keys
	return [][]key.Binding{append(k.Nav.Bindings(), k.Choose, k.Cancel)}
}

// CapturesText is true: letters name the group.
func (d *groupDialog) CapturesText() bool { return true }

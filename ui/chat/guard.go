package chat

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// guarded is a question the chat puts after a command's I/O rather than
// on a key (/undo's confirmation, /tree's "files too?", a refused undo's
// offer to overwrite): the user may be typing their next message as it
// appears, so it takes no key until the keyboard has rested
// (common.Quiet), as an approval does; what is typed meanwhile goes on to
// the input beneath (the shell hands it there).
type guarded struct {
	common.DialogLayer
	ui          *common.UI
	quiet       *common.Quiet
	title, body string
	choices     []dialog.Choice
	cancel      key.Binding
	ignored     int // keys ignored while holding, said on the dialog
}

func newGuarded(ui *common.UI, title, body string, choices ...dialog.Choice) *guarded {
	return &guarded{ui: ui, quiet: common.NewQuiet(ui), title: title, body: body, choices: choices,
		cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))}
}

// choice is a dialog option on one key.
func choice(k, desc string, run func() tea.Cmd) dialog.Choice {
	return dialog.Choice{Key: key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)), Run: run}
}

// Init starts the quiet period's timer.
func (g *guarded) Init() tea.Cmd { return g.quiet.Start() }

// Holding reports whether the dialog still ignores keys (common.Guarded).
func (g *guarded) Holding() bool { return g.quiet.Holding() }

func (g *guarded) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case common.QuietMsg:
		return g, g.quiet.Update(msg)
	case tea.KeyMsg:
		if g.quiet.Holding() {
			g.ignored++
			return g, nil
		}
		for _, c := range g.choices {
			if key.Matches(msg, c.Key) {
				g.ui.Close(g)
				if c.Run == nil {
					return g, nil
				}
				return g, c.Run()
			}
		}
		if key.Matches(msg, g.cancel) {
			return g, g.ui.Close(g)
		}
	}
	return g, nil
}

func (g *guarded) View(width, height int) string {
	st := g.ui
	w := min(max(width-4, 24), 76)
	var state string
	if g.quiet.Holding() {
		state = "⏸ keys ignored until you stop typing…"
		if g.ignored > 0 {
			state += fmt.Sprintf(" (%s ignored)", common.Plural(g.ignored, "key"))
		}
		state = st.Warn.Render(state)
	} else {
		state = st.OK.Render("▶ ready: answer with a key below")
	}
	var keys []string
	for _, c := range append(append([]dialog.Choice(nil), g.choices...), dialog.Choice{Key: g.cancel}) {
		keys = append(keys, st.Key.Render(c.Key.Help().Key)+" "+c.Key.Help().Desc)
	}
	inner := lipgloss.JoinVertical(lipgloss.Left, st.DialogHead.Render(dialog.Paragraph(st, common.VisibleLine(g.title), w-4)), "",
		dialog.Paragraph(st, g.body, w-4), "", state, st.R.NewStyle().Width(w-4).Render(strings.Join(keys, " · ")))
	return st.Dialog.Width(w).Render(inner)
}

func (g *guarded) Title() string { return g.title }

func (g *guarded) Help() [][]key.Binding {
	var ks []key.Binding
	for _, c := range g.choices {
		ks = append(ks, c.Key)
	}
	return [][]key.Binding{append(ks, g.cancel)}
}

package projects

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
	"github.com/pi-tui/pi-tui/ui/pathfield"
)

// relocateDialog asks where a missing project's folder went, with folder
// completion as in the add dialog, and moves the project there.
type relocateDialog struct {
	common.DialogLayer
	host    *host.Host
	st      *common.UI
	p       registry.Project
	path    pathfield.Field
	errText string
	busy    bool
	keys    relocateKeys
}

type relocateKeys struct{ Complete, Submit, Cancel key.Binding }

func newRelocateDialog(h *host.Host, st *common.UI, p registry.Project, path string) *relocateDialog {
	f := pathfield.New(pathfield.Options{Home: h.Places.Home})
	f.Input.SetValue(path)
	f.Input.CursorEnd()
	return &relocateDialog{host: h, st: st, p: p, path: f, keys: relocateKeys{
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete folder")),
		Submit:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "relocate")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}}
}

type relocatedMsg struct {
	res registry.Relocated
	err error
}

func (d *relocateDialog) Update(msg tea.Msg) (common.Layer, tea.Cmd) {
	switch msg := msg.(type) {
	case pathfield.Msg:
		if e, ok := d.path.Apply(msg); ok && e != "" {
			d.errText = e
		}
	case relocatedMsg:
		d.busy = false
		if msg.err != nil && msg.res.Project.ID == "" {
			d.errText = msg.err.Error()
			return d, nil
		}
		d.st.Close(d)
		return d, relocatedNotice(d.host, d.p.Name, msg)
	case tea.KeyMsg:
		k := d.keys
		switch {
		case key.Matches(msg, k.Cancel):
			return d, d.st.Close(d)
		case d.busy:
			return d, nil
		case key.Matches(msg, k.Complete):
			return d, d.path.Complete()
		case key.Matches(msg, k.Submit):
			return d, d.relocate()
		}
		d.errText = ""
		return d, d.path.Update(msg)
	}
	return d, nil
}

func (d *relocateDialog) relocate() tea.Cmd {
	typed := strings.TrimSpace(d.path.Input.Value())
	if typed == "" {
		d.errText = "Type the folder's new path first."
		return nil
	}
	d.busy = true
	return relocateCmd(d.st.Ctx, d.host, d.p.ID, paths.ExpandHome(typed, d.host.Places.Home))
}

// relocateCmd relocates project id to the folder at path off the UI
// goroutine, in the program's context ctx (one cut short is finished by
// relocating again). Session files are where the runtimes see them: the
// host's sessions say.
func relocateCmd(ctx context.Context, h *host.Host, id, path string) tea.Cmd {
	return func() tea.Msg {
		res, err := h.Projects.Relocate(ctx, id, path, registry.RelocateOptions{SessionsDir: h.Sessions.Dir, Places: &h.Places})
		return relocatedMsg{res: res, err: err}
	}
}

// relocatedNotice selects the relocated project and says what moved, or
// what went wrong after the move.
func relocatedNotice(h *host.Host, name string, msg relocatedMsg) tea.Cmd {
	note := fmt.Sprintf("relocated %s to %s: %s, memory and trust moved", name,
		paths.Tilde(msg.res.Project.Root, h.Places.Home), plural(msg.res.Sessions, "session"))
	if len(msg.res.Problems) > 0 {
		note += fmt.Sprintf("; %d session header(s) not updated: %s", len(msg.res.Problems), strings.Join(msg.res.Problems, "; "))
	}
	id := msg.res.Project.ID
	cmds := []tea.Cmd{func() tea.Msg { return SelectMsg{ID: id} }}
	if msg.err != nil {
		cmds = append(cmds, common.Failure(msg.err))
	} else {
		cmds = append(cmds, common.Notice("%s", note))
	}
	return tea.Batch(cmds...)
}

func (d *relocateDialog) View(width, height int) string {
	st := d.st
	w := min(max(width-4, 30), 72)
	d.path.Input.Width = w - 12
	lines := []string{
		st.DialogHead.Render("Relocate " + common.VisibleLine(d.p.Name)), "",
		dialog.Paragraph(st, common.VisibleLine(fmt.Sprintf("The folder %s is gone. Where is it now? Its sessions, memory, trust, group and pin move with it.",
			paths.Tilde(d.p.Root, d.host.Places.Home))), w-4), "",
		st.Key.Render("› Folder ") + d.path.Input.View(),
	}
	lines = append(lines, d.path.Lines(st, 9)...)
	if d.errText != "" {
		lines = append(lines, st.Error.Render(d.errText))
	}
	if d.busy {
		lines = append(lines, st.Dim.Render("relocating…"))
	}
	lines = append(lines, "", st.Dim.Render(common.Hints(d.keys.Complete, d.keys.Submit, d.keys.Cancel)))
	return st.Dialog.Width(w).Render(lipgloss.JoinVertical(lipgloss.Left, lines...))
}

func (d *relocateDialog) Title() string { return "Relocate " + d.p.Name }
func (d *relocateDialog) Help() [][]key.Binding {
	k := d.keys
	return [][]key.Binding{{k.Complete, k.Submit, k.Cancel}}
}

// CapturesText is true: the folder is typed.
func (d *relocateDialog) CapturesText() bool { return true }

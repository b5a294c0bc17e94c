package projects

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	coreprojects "github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

func bind(k, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc))
}

// menu is a project's row menu. A project whose folder is gone offers only
// what still makes sense: rename, pin, archive, trust, memory and remove.
func (m *Model) menu(p coreprojects.Project) *dialog.Menu {
	var items []dialog.Item
	run := func(action func(coreprojects.Project) tea.Cmd) func() tea.Cmd {
		return func() tea.Cmd { return action(p) }
	}
	if !p.Missing {
		if m.actions.OpenSession != nil {
			// Opening a session is what "last opened" records.
			items = append(items, dialog.Item{Key: bind("o", "Open session"), Run: func() tea.Cmd {
				return tea.Batch(m.actions.OpenSession(p), m.markOpened(p))
			}})
		}
		if m.actions.EditAgents != nil {
			items = append(items, dialog.Item{Key: bind("a", "Edit AGENTS.md"), Run: run(m.actions.EditAgents)})
		}
	}
	if m.actions.EditMemory != nil {
		items = append(items, dialog.Item{Key: bind("m", "Edit memory"), Run: run(m.actions.EditMemory)})
	}
	if !p.Missing && m.actions.ShowInstructions != nil {
		items = append(items, dialog.Item{Key: bind("i", "Show instructions"), Run: func() tea.Cmd { return m.actions.ShowInstructions(p) }})
	}
	items = append(items, dialog.Item{Key: bind("r", "Rename"), Run: func() tea.Cmd { return m.st.Push(m.renameDialog(p)) }})
	pin := "Pin"
	if p.Pinned {
		pin = "Unpin"
	}
	items = append(items, dialog.Item{Key: bind("p", pin), Run: m.change(p, func(ctx context.Context, r *coreprojects.Registry) (string, error) {
		return fmt.Sprintf("%sned %s", lower(pin), p.Name), r.SetPinned(ctx, p.ID, !p.Pinned)
	})})
	arch := "Archive"
	if p.Archived {
		arch = "Restore"
	}
	items = append(items, dialog.Item{Key: bind("x", arch), Run: m.change(p, func(ctx context.Context, r *coreprojects.Registry) (string, error) {
		if p.Archived {
			return "restored " + p.Name, r.SetArchived(ctx, p.ID, false)
		}
		return "archived " + p.Name + " (nothing deleted; x restores it)", r.SetArchived(ctx, p.ID, true)
	})})
	trust := "Trust (load nested instructions)"
	if p.Trusted {
		trust = "Untrust"
	}
	items = append(items, dialog.Item{Key: bind("t", trust), Run: m.change(p, func(ctx context.Context, r *coreprojects.Registry) (string, error) {
		if p.Trusted {
			return "untrusted " + p.Name + ": only root instructions load", r.SetTrusted(ctx, p.ID, false)
		}
		return "trusted " + p.Name + ": nested instructions load", r.SetTrusted(ctx, p.ID, true)
	})})
	items = append(items, dialog.Item{Key: bind("D", "Remove…"), Run: func() tea.Cmd { return m.st.Push(m.removeDialog(p)) }})
	title := common.VisibleLine(p.Name)
	if p.Missing {
		title += " (folder missing)"
	}
	return dialog.NewMenu(m.st, title, items)
}

func lower(s string) string {
	if s == "Pin" {
		return "pin"
	}
	return "unpin"
}

// change returns a func that starts a registry change as a command and
// reports it; menus and dialogs call it when chosen.
func (m *Model) change(p coreprojects.Project, fn func(context.Context, *coreprojects.Registry) (string, error)) func() tea.Cmd {
	reg := m.host.Projects
	return func() tea.Cmd {
		return func() tea.Msg {
			notice, err := fn(context.Background(), reg)
			return changedMsg{notice: notice, err: err}
		}
	}
}

func (m *Model) markOpened(p coreprojects.Project) tea.Cmd {
	reg := m.host.Projects
	return func() tea.Msg {
		if err := reg.MarkOpened(context.Background(), p.ID); err != nil {
			return changedMsg{err: err}
		}
		return changedMsg{}
	}
}

func (m *Model) renameDialog(p coreprojects.Project) *dialog.Prompt {
	return dialog.NewPrompt(m.st, "Rename "+p.Name, "Names may not contain / or look like an id.", p.Name,
		func(v string) string {
			if len(v) == 0 || len(trimmed(v)) == 0 {
				return "The name is empty."
			}
			return ""
		},
		func(v string) tea.Cmd {
			return m.change(p, func(ctx context.Context, r *coreprojects.Registry) (string, error) {
				return "renamed to " + trimmed(v), r.Rename(ctx, p.ID, v)
			})()
		})
}

func trimmed(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// removeDialog is the second step of removal: D again confirms.
func (m *Model) removeDialog(p coreprojects.Project) *dialog.Confirm {
	body := fmt.Sprintf("pi-tui forgets %s, its %s and its memory.\nThe folder %s stays on disk, untouched.\n\nPress D again to remove it.",
		p.Name, plural(p.Sessions, "session"), paths.Tilde(p.Root, m.host.Places.Home))
	return dialog.NewConfirm(m.st, "Remove "+p.Name+"?", body, m.change(p, func(ctx context.Context, r *coreprojects.Registry) (string, error) {
		return "removed " + p.Name + "; the folder was kept", r.Remove(ctx, p.ID)
	}), "D")
}

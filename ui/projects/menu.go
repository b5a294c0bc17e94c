package projects

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// rowAction is one thing a row key does to a project.
type rowAction struct {
	key key.Binding
	run func() tea.Cmd
}

// rowActions are what the row keys do to p, from the key table, in menu
// order. A project whose folder is gone offers only what still makes
// sense: memory, rename, pin, archive, trust, group, relocate and remove.
func (m *Model) rowActions(p registry.Project) []rowAction {
	k := m.keys
	var out []rowAction
	add := func(b key.Binding, desc string, run func() tea.Cmd) {
		if desc != "" {
			b.SetHelp(b.Help().Key, desc)
		}
		out = append(out, rowAction{key: b, run: run})
	}
	act := func(action func(registry.Project) tea.Cmd) func() tea.Cmd {
		return func() tea.Cmd { return action(p) }
	}
	if !p.Missing {
		if m.actions.OpenSession != nil {
			// Opening a session is what "last opened" records.
			add(k.Open, "", func() tea.Cmd { return tea.Batch(m.actions.OpenSession(p), m.markOpened(p)) })
		}
		switch {
		case m.actions.EditAgents == nil:
		case len(p.Folders) > 1:
			// Each folder has its own (ADR 0085).
			add(k.Agents, "Edit an AGENTS.md…", func() tea.Cmd { return m.agentsMenu(p) })
		default:
			add(k.Agents, "", func() tea.Cmd { return m.actions.EditAgents(p, p.Root) })
		}
	}
	if m.actions.EditMemory != nil {
		add(k.Memory, "", act(m.actions.EditMemory))
	}
	add(k.AgentWrites, "", m.toggleAgentWrites(p))
	if !p.Missing && m.actions.ShowInstructions != nil {
		add(k.Instructions, "", act(m.actions.ShowInstructions))
	}
	add(k.Rename, "", func() tea.Cmd { return m.st.Push(m.renameDialog(p)) })
	pin := "Pin"
	if p.Pinned {
		pin = "Unpin"
	}
	add(k.Pin, pin, m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
		return fmt.Sprintf("%sned %s", lower(pin), p.Name), r.SetPinned(ctx, p.ID, !p.Pinned)
	}))
	arch := ""
	if p.Archived {
		arch = "Restore"
	}
	add(k.Archive, arch, m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
		if p.Archived {
			return "restored " + p.Name, r.SetArchived(ctx, p.ID, false)
		}
		return "archived " + p.Name + " (nothing deleted; x restores it)", r.SetArchived(ctx, p.ID, true)
	}))
	trust := ""
	if p.Trusted {
		trust = "Untrust"
	}
	add(k.Trust, trust, m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
		if p.Trusted {
			return "untrusted " + p.Name + ": only root instructions load", r.SetTrusted(ctx, p.ID, false)
		}
		return "trusted " + p.Name + ": nested instructions load", r.SetTrusted(ctx, p.ID, true)
	}))
	add(k.Group, "", func() tea.Cmd { return m.st.Push(newGroupDialog(m, p)) })
	add(k.AddFolder, "", func() tea.Cmd { return m.st.Push(newFolderDialog(m.host, m.st, p)) })
	if len(p.Folders) > 1 {
		add(k.RemoveFolder, "", func() tea.Cmd { return m.removeFolderMenu(p) })
	}
	if p.Missing {
		add(k.Relocate, "", func() tea.Cmd { return m.st.Push(newRelocateDialog(m.host, m.st, p, "")) })
	}
	add(k.Remove, "", func() tea.Cmd { return m.st.Push(m.removeDialog(p)) })
	return out
}

// menu is a project's row menu: the row actions with their keys, the
// agent-writes item saying whether they are on, as the last load read
// them (the toggle reads the switch again when chosen).
func (m *Model) menu(p registry.Project) *dialog.Menu {
	var items []dialog.Item
	for _, a := range m.rowActions(p) {
		if a.key.Help().Key == m.keys.AgentWrites.Help().Key && m.writes != nil {
			state := "now off"
			if m.writes[p.ID] {
				state = "now on"
			}
			a.key.SetHelp(a.key.Help().Key, "Agent may write memory: "+state)
		}
		items = append(items, dialog.Item{Key: a.key, Run: a.run})
	}
	title := common.VisibleLine(p.Name)
	if p.Missing {
		title += " (folder missing)"
	}
	return dialog.NewMenu(m.st, title, items)
}

// rowKey runs the row action bound to msg directly, as the menu would.
// A row key that does not apply to p says why instead of doing nothing.
func (m *Model) rowKey(p registry.Project, msg tea.KeyMsg) tea.Cmd {
	for _, a := range m.rowActions(p) {
		if key.Matches(msg, a.key) {
			return a.run()
		}
	}
	for _, b := range m.keys.rowKeys() {
		if !key.Matches(msg, b) {
			continue
		}
		switch {
		case b.Help().Key == m.keys.RemoveFolder.Help().Key:
			return m.removeFolderMenu(p) // says why not
		case b.Help().Key == m.keys.Relocate.Help().Key:
			return common.Notice("%s is where it was; relocate is for a project whose folder moved", p.Name)
		case p.Missing:
			return common.Notice("%s: %s is gone; %s relocates the project", b.Help().Desc, paths.Tilde(p.Root, m.host.Places.Home), m.keys.Relocate.Help().Key)
		}
	}
	return nil
}

func lower(s string) string {
	if s == "Pin" {
		return "pin"
	}
	return "unpin"
}

// change returns a func that starts a registry change as a command and
// reports it; menus and dialogs call it when chosen.
func (m *Model) change(p registry.Project, fn func(context.Context, *registry.Registry) (string, error)) func() tea.Cmd {
	reg, ctx := m.host.Projects, m.ctx
	return func() tea.Cmd {
		return func() tea.Msg {
			notice, err := fn(ctx, reg)
			return changedMsg{notice: notice, err: err}
		}
	}
}

// toggleAgentWrites flips whether p's agent may change its memory through
// the remember tool (ADR 0022) and says what it is now. The switch is read
// when chosen, not when the menu was drawn, so another window's change is
// not undone by accident.
func (m *Model) toggleAgentWrites(p registry.Project) func() tea.Cmd {
	mem := m.host.Memory
	return m.change(p, func(ctx context.Context, _ *registry.Registry) (string, error) {
		on, err := mem.AgentWrites(ctx, p.ID)
		if err != nil {
			return "", err
		}
		if err := mem.SetAgentWrites(ctx, p.ID, !on); err != nil {
			return "", err
		}
		switch {
		case on:
			return "agent writes off: the agent of " + p.Name + " can no longer change its memory", nil
		case !p.Trusted:
			return "agent writes on for " + p.Name + ", but it is not trusted: its agent gets no remember tool until you trust it (t)", nil
		}
		return "agent writes on: the agent of " + p.Name + " may change its memory; each change shows in its session, /undo-memory undoes it", nil
	})
}

func (m *Model) markOpened(p registry.Project) tea.Cmd {
	reg, ctx := m.host.Projects, m.ctx
	return func() tea.Msg {
		if err := reg.MarkOpened(ctx, p.ID); err != nil {
			return changedMsg{err: err}
		}
		return changedMsg{}
	}
}

func (m *Model) renameDialog(p registry.Project) *dialog.Prompt {
	return dialog.NewPrompt(m.st, "Rename "+p.Name, "Names may not contain / or look like an id.", p.Name,
		func(v string) string {
			if len(v) == 0 || len(trimmed(v)) == 0 {
				return "The name is empty."
			}
			return ""
		},
		func(v string) tea.Cmd {
			return m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
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
func (m *Model) removeDialog(p registry.Project) *dialog.Confirm {
	body := fmt.Sprintf("pi-tui forgets %s, its %s and its memory.\nThe folder %s stays on disk, untouched.\n\nPress D again to remove it.",
		p.Name, plural(p.Sessions, "session"), paths.Tilde(p.Root, m.host.Places.Home))
	return dialog.NewConfirm(m.st, "Remove "+p.Name+"?", body, m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
		return "removed " + p.Name + "; the folder was kept", r.Remove(ctx, p.ID)
	}), "D")
}

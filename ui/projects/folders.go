package projects

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/dialog"
)

// A project of several folders (ADR 0085) in the Projects tab: its row's
// third line names the folders after the primary root; f adds one (the
// add dialog, asking for a folder), F removes one (a menu of them, then a
// question that names the sessions that worked there); a (AGENTS.md)
// offers each folder's file. Every change goes through the registry.

// folderText is what the filter finds a project by besides its name and
// root: its other folders' paths and names.
func folderText(p registry.Project) string {
	var b strings.Builder
	for _, f := range p.Folders {
		if !f.Primary {
			b.WriteString("\x00" + f.Path + "\x00" + f.Name)
		}
	}
	return b.String()
}

// renderFolders is a project's third line, when it has folders besides
// its root: "+ web ~/src/web · infra ~/ops/infra [⚠ missing]". Each path
// shares the room the names leave, shortened in its middle.
func (m *Model) renderFolders(p registry.Project, home string) string {
	if len(p.Folders) < 2 {
		return ""
	}
	others := p.Folders[1:]
	type part struct{ head, path, tail string }
	parts := make([]part, 0, len(others))
	used := 6 // "    + "
	for _, f := range others {
		var flags []string
		if f.Missing {
			flags = append(flags, "⚠ missing")
		}
		if !f.Trusted {
			flags = append(flags, "untrusted")
		}
		pt := part{head: common.VisibleLine(f.Name) + " ", path: paths.Tilde(f.Path, home)}
		if len(flags) > 0 {
			pt.tail = " [" + strings.Join(flags, ", ") + "]"
		}
		used += cells(pt.head) + cells(pt.tail) + 3
		parts = append(parts, pt)
	}
	room := max((m.width-used)/len(parts), 10)
	out := make([]string, len(parts))
	for i, pt := range parts {
		out[i] = pt.head + common.ShortPath(pt.path, room) + pt.tail
	}
	return "+ " + strings.Join(out, " · ")
}

// folderItems are a menu's items for p's folders, keyed 1 to 9 (the rest
// are chosen with the cursor): each named with its name, path and what is
// particular about it, run by choose.
func folderItems(p registry.Project, home string, skip func(registry.Folder) bool, file string, choose func(registry.Folder) tea.Cmd) []dialog.Item {
	var items []dialog.Item
	for _, f := range p.Folders {
		if skip(f) {
			continue
		}
		desc := common.VisibleLine(f.Name) + "  " + common.VisibleLine(paths.Tilde(filepath.Join(f.Path, file), home))
		switch {
		case f.Primary:
			desc += "  (primary root)"
		case f.Missing:
			desc += "  (missing)"
		}
		b := key.NewBinding(key.WithHelp(" ", desc)) // past 9: the cursor and enter
		if n := len(items) + 1; n <= 9 {
			b = key.NewBinding(key.WithKeys(strconv.Itoa(n)), key.WithHelp(strconv.Itoa(n), desc))
		}
		items = append(items, dialog.Item{Key: b, Run: func() tea.Cmd { return choose(f) }})
	}
	return items
}

// agentsMenu offers the AGENTS.md of each of p's folders that is there.
func (m *Model) agentsMenu(p registry.Project) tea.Cmd {
	items := folderItems(p, m.host.Places.Home, func(f registry.Folder) bool { return f.Missing }, "AGENTS.md",
		func(f registry.Folder) tea.Cmd { return m.actions.EditAgents(p, f.Path) })
	return m.st.Push(dialog.NewMenu(m.st, "Edit which AGENTS.md of "+common.VisibleLine(p.Name)+"?", items))
}

// removeFolderMenu offers p's folders but the primary root; with one,
// it goes straight to the question.
func (m *Model) removeFolderMenu(p registry.Project) tea.Cmd {
	if len(p.Folders) < 2 {
		return common.Notice("%s has only its primary root, which cannot be removed; %s adds a folder", p.Name, m.keys.AddFolder.Help().Key)
	}
	if len(p.Folders) == 2 {
		return m.askRemoveFolder(p, p.Folders[1])
	}
	items := folderItems(p, m.host.Places.Home, func(f registry.Folder) bool { return f.Primary }, "",
		func(f registry.Folder) tea.Cmd { return m.askRemoveFolder(p, f) })
	return m.st.Push(dialog.NewMenu(m.st, "Remove which folder of "+common.VisibleLine(p.Name)+"?", items))
}

// folderRemovalMsg carries what the question about removing a folder
// says: the sessions that worked in it.
type folderRemovalMsg struct {
	p        registry.Project
	f        registry.Folder
	sessions []string
	err      error
}

// askRemoveFolder looks up, off the UI goroutine, the sessions that
// worked in f, for the question (removeFolderDialog).
func (m *Model) askRemoveFolder(p registry.Project, f registry.Folder) tea.Cmd {
	reg, ctx := m.host.Projects, m.ctx
	return func() tea.Msg {
		ids, err := reg.FolderSessions(ctx, p.ID, f.Path)
		return folderRemovalMsg{p: p, f: f, sessions: ids, err: err}
	}
}

// removeFolderDialog asks before removing a folder: what stays (the
// folder on disk, the sessions) and what the sessions lose. D again
// removes it; when sessions worked there, that answer is the --force.
func (m *Model) removeFolderDialog(msg folderRemovalMsg) tea.Cmd {
	if msg.err != nil {
		return common.Failure(msg.err)
	}
	p, f, home := msg.p, msg.f, m.host.Places.Home
	body := fmt.Sprintf("pi-tui takes the folder %s (%s) out of %s.\nThe folder stays on disk, untouched.",
		common.VisibleLine(f.Name), common.VisibleLine(paths.Tilde(f.Path, home)), common.VisibleLine(p.Name))
	if n := len(msg.sessions); n > 0 {
		ids := msg.sessions
		if len(ids) > 3 {
			ids = append(ids[:3:3], fmt.Sprintf("and %d more", len(msg.sessions)-3))
		}
		body += fmt.Sprintf("\n\n%s worked in it: %s. They stay with the project, but their agents can no longer reach the folder, and undo there is refused until it is added again.",
			plural(n, "session"), strings.Join(ids, ", "))
	}
	body += "\n\nPress D again to remove it."
	force := len(msg.sessions) > 0
	return m.st.Push(dialog.NewConfirm(m.st, "Remove the folder "+common.VisibleLine(f.Name)+"?", body,
		m.change(p, func(ctx context.Context, r *registry.Registry) (string, error) {
			_, err := r.RemoveFolder(ctx, p.ID, f.Path, force)
			return "removed the folder " + f.Name + " from " + p.Name + "; it stays on disk", err
		}), "D"))
}

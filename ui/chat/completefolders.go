package chat

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/registry"
)

// @ completion in a project of several folders (ADR 0085): the primary
// root's files are listed as before (complete.go); each other folder's
// list is loaded beside it, off the UI goroutine, tracked and untracked
// files in one step, and the menu offers the primary root's matches first,
// then each other folder's, written @NAME:path (filesearch.TopAcross).
// On send, AttachIn reads each file through an os.Root on its own folder.

// otherFolders are project p's folders other than its primary root that
// are on disk, in order.
func otherFolders(p *registry.Project) []filesearch.Folder {
	if p == nil {
		return nil
	}
	var out []filesearch.Folder
	for _, f := range p.Folders {
		if !f.Primary && !f.Missing {
			out = append(out, filesearch.Folder{Name: f.Name, Root: f.Path})
		}
	}
	return out
}

// loadOtherFiles lists the other folders' files that are not listed or
// being listed, one command each; the cache makes a fresh list cheap.
func (in *composer) loadOtherFiles() tea.Cmd {
	c := &in.comp
	var cmds []tea.Cmd
	for _, f := range otherFolders(in.project) {
		if c.othersLoading[f.Root] {
			continue
		}
		if c.othersLoading == nil {
			c.othersLoading = map[string]bool{}
		}
		c.othersLoading[f.Root] = true
		cache, ctx, root := c.cache, in.ctx, f.Root
		cmds = append(cmds, func() tea.Msg {
			l, err := cache.Get(ctx, root)
			if err == nil && l.FromIndex && !l.Untracked {
				if nl, err := cache.AddUntracked(ctx, l); err == nil {
					l = nl
				}
			}
			return filesMsg{root: root, list: l, err: err, other: true}
		})
	}
	return tea.Batch(cmds...)
}

// otherLoaded takes in another folder's list; a folder that failed to
// list offers nothing (the primary root's warning line says what the
// menu lists).
func (in *composer) otherLoaded(msg filesMsg) tea.Cmd {
	c := &in.comp
	delete(c.othersLoading, msg.root)
	if c.others == nil {
		c.others = map[string]*filesearch.Matcher{}
	}
	if msg.err != nil || msg.list == nil {
		delete(c.others, msg.root)
		return nil
	}
	if old := c.others[msg.root]; old == nil || old.List() != msg.list {
		c.others[msg.root] = filesearch.NewMatcher(msg.list)
	}
	return in.refreshMenu()
}

// fileSources are what the menu searches: the primary root's matcher,
// then each other folder's (nil while it loads).
func (in *composer) fileSources() []filesearch.Source {
	c := &in.comp
	out := []filesearch.Source{{Matcher: c.matcher}}
	for _, f := range otherFolders(in.project) {
		out = append(out, filesearch.Source{Name: f.Name, Matcher: c.others[f.Root]})
	}
	return out
}

// fileCount is how many files the menu searches, in every folder listed.
func (in *composer) fileCount() int {
	n := 0
	for _, src := range in.fileSources() {
		if src.Matcher != nil {
			n += len(src.Matcher.List().Paths)
		}
	}
	return n
}

// projectMsg is the open project as the registry holds it after a write
// (projectChanged).
type projectMsg struct {
	p   registry.Project
	err error
}

// projectChanged reads the open project again when the registry says it
// changed (a folder added, removed or renamed, from any program of the
// process), so @ completion and attachment see its folders as they are
// now, not as they were when the chat opened it.
func (m *Model) projectChanged(c events.ProjectsChanged) tea.Cmd {
	if m.project == nil || m.d.Host == nil || (c.ProjectID != "" && c.ProjectID != m.project.ID) {
		return nil
	}
	reg, ctx, id := m.d.Host.Projects, m.ctx, m.project.ID
	return func() tea.Msg {
		p, err := reg.Get(ctx, id)
		return projectMsg{p: p, err: err}
	}
}

// projectRead takes the project read again. Only its folders are taken:
// a project left or whose primary root moved meanwhile is another
// chat's business (SetProject), and an error keeps what is shown.
func (m *Model) projectRead(msg projectMsg) tea.Cmd {
	if msg.err != nil || m.project == nil || msg.p.ID != m.project.ID || msg.p.Root != m.project.Root {
		return nil
	}
	if slices.Equal(msg.p.Folders, m.project.Folders) {
		return nil
	}
	p := msg.p
	m.project = &p
	if m.in.comp.kind == menuFiles {
		return tea.Batch(m.in.loadOtherFiles(), m.in.refreshMenu()) // the menu shows: new folders list now
	}
	return nil
}

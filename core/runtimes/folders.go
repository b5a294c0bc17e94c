package runtimes

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// A project of several folders (ADR 0085, 0089): a runtime's file tools
// reach every folder of its project, each confined as the root is. The
// folders are part of the spec, so adding, removing, trusting or
// renaming one is a new spec (ReasonFoldersChanged); an idle runtime is
// retired for it at once (watchFolders), so that an agent stops reaching a
// folder the moment it is removed from the project.

// ReasonFoldersChanged retires a runtime whose project's folders (or
// their names or trust) changed.
const ReasonFoldersChanged = "folders-changed"

// projectFolders returns the primary root's name and the project's other
// folders, in order, with their trust: what a spec holds of them.
func (m *Manager) projectFolders(ctx context.Context, projectRoot string) (primary string, others []registry.Folder, err error) {
	all, err := m.opts.Host.Projects.FoldersOf(ctx, projectRoot)
	if err != nil {
		return "", nil, err
	}
	primary, others = splitFolders(projectRoot, all)
	return primary, others, nil
}

// splitFolders is the primary root's name and the other folders of all.
func splitFolders(projectRoot string, all []registry.Folder) (primary string, others []registry.Folder) {
	primary = filepath.Base(projectRoot)
	for _, f := range all {
		if f.Primary {
			primary = f.Name
		} else {
			others = append(others, f)
		}
	}
	return primary, others
}

// foldersText is the spec's folders as one string, for the fingerprint and
// for comparing.
func foldersText(fs []registry.Folder) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\x01", f.Name, f.Path, boolText(f.Trusted), boolText(f.Missing))
	}
	return b.String()
}

// confined is the folders the file tools of a spec reach: the session's
// root (the project's, or the worktree standing in for it) under the
// primary's name, then the others.
func (s Spec) confined() confine.Folders {
	out := confine.Folders{{Name: s.PrimaryName, Root: s.Root}}
	if out[0].Name == "" {
		out[0].Name = filepath.Base(s.ProjectRoot)
	}
	for _, f := range s.Folders {
		out = append(out, confine.Folder{Name: f.Name, Root: f.Path})
	}
	return out
}

// foldersSection tells the model the project's folders and how to name
// their files, in both engines' system prompts; "" for a project of one
// folder. Names and paths are quoted like every label (ADR 0014).
func foldersSection(primaryName, root string, fs []registry.Folder, worktree bool) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Project folders\n\nThis project has several folders. The file tools (read, write, edit, ls, grep, find) reach each of them, confined to it; anything outside them is refused.\n\n")
	fmt.Fprintf(&b, "- %s: %s — the primary root, your working directory; its paths are relative (src/x.go)", strconv.Quote(primaryName), safetext.Label(root))
	if worktree {
		b.WriteString(" (this session's own worktree)")
	}
	b.WriteString("\n")
	for _, f := range fs {
		fmt.Fprintf(&b, "- %s: %s — name its files %s", strconv.Quote(f.Name), safetext.Label(f.Path), strconv.Quote(f.Name+":path"))
		switch {
		case f.Missing:
			b.WriteString(" (missing from disk: nothing there can be reached)")
		case !f.Trusted:
			b.WriteString(" (untrusted: its instruction files are not given to you)")
		}
		if worktree {
			b.WriteString(" (shared: not part of this session's worktree)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nName a file of another folder as NAME:path (%s) or by its absolute path. A link inside a folder may not lead out of it, not even into another folder. bash starts in the primary root.", strconv.Quote(fs[0].Name+":src/app.ts"))
	return b.String()
}

// sharedNotice is what a worktree session of a project of several
// folders is told at launch: the worktree isolates the primary root only
// (ADR 0085); "" otherwise.
func sharedNotice(spec Spec) string {
	if spec.Root == spec.ProjectRoot || len(spec.Folders) == 0 {
		return ""
	}
	names := make([]string, len(spec.Folders))
	for i, f := range spec.Folders {
		names[i] = strconv.Quote(f.Name)
	}
	return fmt.Sprintf("this worktree isolates the primary root only: folders %s are shared with the project's other sessions, and changes there land in them directly", strings.Join(names, ", "))
}

// noteFolderUse is a runtime's Reached: the first call of the session
// to reach a folder other than the primary root is noted in the registry
// (so removing the folder can name the session). A failure is said, not
// fatal: the call goes on.
func (m *Manager) noteFolderUse(projectID, sessionID string) func(confine.Folder) {
	return func(f confine.Folder) {
		if err := m.opts.Host.Projects.NoteFolderUse(context.Background(), projectID, sessionID, f.Root); err != nil {
			m.emit(events.Notice{SessionID: sessionID, Level: "warning", Source: "pi-tui",
				Text: fmt.Sprintf("pi-tui could not note that this session worked in folder %s: %v", strconv.Quote(f.Name), err)})
		}
	}
}

// watchFolders retires, as soon as this process changes a project's
// folders (a folder added, removed, renamed, relocated, trusted or
// untrusted: the registry announces each write on the broker), every idle
// runtime of that project, until Close. A busy one keeps its folders
// until its turn ends, and a change made by another process is seen by
// the next prompt's build; both then relaunch with folders-changed.
func (m *Manager) watchFolders(ctx context.Context) {
	m.onTopic(ctx, events.Projects, func(batch []events.Event) {
		ids := map[string]bool{}
		for _, e := range batch {
			if c, ok := e.(events.ProjectsChanged); ok {
				ids[c.ProjectID] = true // "" is every project
			}
		}
		if len(ids) > 0 {
			m.foldersChanged(ctx, ids)
		}
	})
}

// foldersChanged retires the idle runtimes of the projects ids names ("":
// all) whose folders are no longer what their spec holds.
func (m *Manager) foldersChanged(ctx context.Context, ids map[string]bool) (retired int) {
	type idle struct {
		rt   *Runtime
		spec Spec
	}
	m.mu.Lock()
	var list []idle
	for _, rt := range m.runtimes {
		if !rt.busy() && !rt.reserved && (ids[""] || ids[rt.Session.ProjectID()]) {
			list = append(list, idle{rt, rt.Spec})
		}
	}
	m.mu.Unlock()
	for _, x := range list {
		name, cur, err := m.projectFolders(ctx, x.spec.ProjectRoot)
		if err != nil || (name == x.spec.PrimaryName && foldersText(cur) == foldersText(x.spec.Folders)) {
			continue // a project removed or moved is the next build's to say
		}
		m.mu.Lock()
		if rt := x.rt; m.runtimes[rt.Session.ID()] == rt && !rt.busy() && !rt.reserved && slices.Equal(rt.Spec.Folders, x.spec.Folders) {
			m.retireLocked(rt, ReasonFoldersChanged)
			retired++
		}
		m.mu.Unlock()
	}
	return retired
}

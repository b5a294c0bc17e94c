package sessions

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/internal/safetext"
	"github.com/pi-tui/pi-tui/store"
)

// Match is a session file a Lookup found.
type Match struct {
	// ID is the session's id: its header's, or the one its file's name
	// carries when the header cannot be read.
	ID string
	// ProjectID and Project are the id and name of the registered project
	// the session belongs to ("" when none).
	ProjectID, Project string
	// Title is the session's name. Only an AmbiguousError's candidates
	// carry it: reading it means reading the file to its end.
	Title string
	Path  string
}

// AmbiguousError says that an id names more than one session: a prefix
// that several sessions' ids start with (UUIDv7 ids begun within about a
// minute share their first 8 digits), or a full id two files carry.
// Nothing was opened.
type AmbiguousError struct {
	ID      string
	Project string // the project the lookup was scoped to, "" for every one
	// Candidates are the sessions it names, by id (at most maxCandidates);
	// More counts the ones left out.
	Candidates []Match
	More       int
}

// maxCandidates bounds the candidates an AmbiguousError lists (and the
// files read for their titles): a one-digit prefix can name hundreds.
const maxCandidates = 10

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	in := ""
	if e.Project != "" {
		in = " in project " + safetext.Label(e.Project)
	}
	fmt.Fprintf(&b, "%s names %d sessions%s: ", safetext.Label(e.ID), len(e.Candidates)+e.More, in)
	for i, c := range e.Candidates {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(safetext.Label(c.ID))
		if c.ProjectID == "" {
			b.WriteString(" (no project")
		} else {
			b.WriteString(" (project " + safetext.Label(c.Project))
		}
		if c.Title != "" {
			b.WriteString(", " + safetext.Label(c.Title))
		}
		b.WriteString(")")
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "; and %d more", e.More)
	}
	b.WriteString("; nothing was done: give more of the id")
	return b.String()
}

// Lookup finds the one session id names: a session's full id, or the
// start of one, as pi's --session takes it. It sees every session file of
// every registered project (projectID, when not "", keeps to that
// project's), whatever this process has listed or opened before, so the
// answer is the same in every process. A full id wins over prefixes; an
// id that names more than one session is an *AmbiguousError listing them,
// and none is picked. Only folder listings and the matching files' first
// lines are read (and, when ambiguous, the candidates' titles), never
// every file.
func (m *Manager) Lookup(ctx context.Context, id, projectID string) (Match, error) {
	if err := m.Migrate(ctx); err != nil {
		return Match{}, err
	}
	projects, err := m.st.Projects(ctx, "")
	if err != nil {
		return Match{}, fmt.Errorf("find session %s: %w", id, err)
	}
	scopeName := ""
	if projectID != "" {
		i := slices.IndexFunc(projects, func(p store.ProjectRow) bool { return p.ID == projectID })
		if i < 0 {
			return Match{}, notFound("there is no project %s", projectID)
		}
		scopeName = projects[i].Name
	}
	m.mu.Lock()
	if s := m.pending[id]; s != nil && !s.pi.Persisted() && (projectID == "" || s.projectID == projectID) {
		m.mu.Unlock()
		return m.match(projects, s.File(), id, s.projectID), nil
	}
	m.mu.Unlock()

	exact, prefixed, err := m.candidates(ctx, projects, id, projectID)
	if err != nil {
		return Match{}, err
	}
	found := exact
	if len(found) == 0 {
		found = prefixed
	}
	switch len(found) {
	case 0:
		if projectID != "" {
			return Match{}, notFound("project %s has no session %s; list them with pi-tui sessions list PROJECT", safetext.Label(scopeName), id)
		}
		return Match{}, notFound("there is no session %s; list them with pi-tui sessions list PROJECT", id)
	case 1:
		return found[0], nil
	}
	slices.SortFunc(found, func(a, b Match) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Path, b.Path))
	})
	amb := &AmbiguousError{ID: id, Project: scopeName}
	if len(found) > maxCandidates {
		amb.More = len(found) - maxCandidates
		found = found[:maxCandidates]
	}
	for i := range found {
		found[i].Title = m.title(ctx, found[i].Path)
	}
	amb.Candidates = found
	return Match{}, amb
}

// candidates returns the session files id names, split into those whose
// id is id and those whose id starts with it, each with its project, kept
// to projectID's when that is set.
func (m *Manager) candidates(ctx context.Context, projects []store.ProjectRow, id, projectID string) (exact, prefixed []Match, err error) {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return nil, nil, nil // names no file
	}
	seen := map[string]bool{} // paths
	add := func(path string, isExact bool) {
		if seen[path] {
			return
		}
		seen[path] = true
		mt := m.match(projects, path, "", "")
		if projectID != "" && mt.ProjectID != projectID {
			return
		}
		if isExact || mt.ID == id {
			exact = append(exact, mt)
		} else {
			prefixed = append(prefixed, mt)
		}
	}
	dirs := map[string]bool{}
	for _, p := range projects {
		if projectID != "" && p.ID != projectID {
			continue
		}
		dir := m.Dir(p.Root)
		if dirs[dir] {
			continue
		}
		dirs[dir] = true
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		ex, pre, err := pisession.Matches(dir, id)
		if err != nil {
			continue // an unreadable folder: its project's list says why
		}
		for _, f := range ex {
			add(f, true)
		}
		for _, f := range pre {
			add(f, false)
		}
	}
	// Files this process listed whose names do not carry their ids (a
	// file renamed by hand): the header's id is what they are known by.
	m.mu.Lock()
	var known []string
	for k, p := range m.known {
		if strings.HasPrefix(k, id) && !seen[p] {
			known = append(known, p)
		}
	}
	m.mu.Unlock()
	for _, p := range known {
		if _, err := os.Stat(p); err == nil {
			add(p, false)
		}
	}
	return exact, prefixed, nil
}

// match describes the session file at path: its id (from the header, else
// id, else the file's name) and its project.
func (m *Manager) match(projects []store.ProjectRow, path, id, projectID string) Match {
	cwd := ""
	if h, err := pisession.ReadHeader(path); err == nil {
		id, cwd = h.ID, h.Cwd
	} else if id == "" {
		id = fileID(filepath.Base(path))
	}
	if projectID == "" {
		projectID = m.projectOf(projects, cwd, path)
	}
	mt := Match{ID: id, ProjectID: projectID, Path: path}
	for _, p := range projects {
		if p.ID == projectID {
			mt.Project = p.Name
		}
	}
	return mt
}

// projectOf returns the project a session file belongs to: the one whose
// root is the file's working directory, else (in a folder of one
// project's sessions) the one whose folder holds it; "" when none.
func (m *Manager) projectOf(projects []store.ProjectRow, cwd, path string) string {
	for _, p := range projects {
		if cwd != "" && p.Root == cwd {
			return p.ID
		}
	}
	if m.cfg.SessionDir != "" {
		return "" // the shared folder says nothing of a file's project
	}
	for _, p := range projects {
		if m.Dir(p.Root) == filepath.Dir(path) {
			return p.ID
		}
	}
	return ""
}

// title returns a session file's name (pi's session_info), through the
// listings' index, so a file a listing read is not read again.
func (m *Manager) title(ctx context.Context, path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if s, ok := m.idx.Get(path, fi.Size(), fi.ModTime()); ok {
		return s.Name
	}
	s := pisession.Summarise(ctx, path, listOptions())
	if ctx.Err() == nil && s.Size == fi.Size() && s.ModTime.Equal(fi.ModTime()) {
		m.idx.Put(s)
	}
	return s.Name
}

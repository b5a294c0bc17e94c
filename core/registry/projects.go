// Package registry is the registry of project folders: canonical roots,
// names, pin/archive flags and last-opened times, and their trust, which
// lives in pi's trust.json (see Trust). A project is known by its
// canonical root (absolute, clean, symlinks resolved), so a folder
// reached through a link or a relative path is still one project.
package registry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/git"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/store"
)

// Project is one registered project with what a listing shows about it.
type Project struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Root          string `json:"root"`
	Pinned        bool   `json:"pinned"`
	Archived      bool   `json:"archived"`
	Trusted       bool   `json:"trusted"`
	Missing       bool   `json:"missing"`
	MemoryEntries int    `json:"memoryEntries"`
	MemoryBytes   int    `json:"memoryBytes"`
	Sessions      int    `json:"sessions"`
	LastOpenedAt  *int64 `json:"lastOpenedAt"` // unix ms; null when never opened
	// Group is the group the user put the project in; "" for none.
	Group string `json:"group"`
	// DuplicateName marks a project whose name another project also has
	// (ignoring case): possible only in a database written before names
	// were kept unique. Such a name picks no project; use the id or path.
	DuplicateName bool `json:"duplicateName"`
	// Folders are the project's folders in order, the primary root (Root)
	// first (ADR 0085); one for a project of one folder. Binding leaves
	// them out (FoldersOf reads them).
	Folders   []Folder `json:"folders"`
	CreatedAt int64    `json:"-"`
}

// Registry manages projects in the store; their trust comes from
// trust.json in the agent dir.
type Registry struct {
	st       *store.Store
	agentDir string
	trust    *Trust

	mu       sync.Mutex
	migrated bool // the store's trust flags were carried into trust.json
	onChange func(projectID string)
	git      string
	gitKnown bool     // git was set or looked up (SetGit)
	gitRun   *git.Git // git found at r.git, for rootCommits
}

// NewRegistry returns a Registry over st whose trust is agentDir's
// trust.json.
func NewRegistry(st *store.Store, agentDir string) *Registry {
	return &Registry{st: st, agentDir: agentDir, trust: NewTrust(agentDir)}
}

// Trust returns the trust record the registry reads.
func (r *Registry) Trust() *Trust { return r.trust }

// NotFoundError says no project matches what the user typed.
type NotFoundError struct{ Query string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no project matches %q; see `pi-tui projects list --all`", e.Query)
}

// AmbiguousError says a name matches several projects; it lists them so
// the user can pick one by id or path.
type AmbiguousError struct {
	Query   string
	Matches []Project
}

func (e *AmbiguousError) Error() string {
	var parts []string
	for _, p := range e.Matches {
		parts = append(parts, fmt.Sprintf("%s (%s)", p.ID, p.Root))
	}
	return fmt.Sprintf("%q names %d projects: %s; use an id or a path", e.Query, len(e.Matches), strings.Join(parts, ", "))
}

// Canonical turns a user-typed path into a project root: absolute, clean,
// symlinks resolved, and an existing directory.
func Canonical(path string) (string, error) {
	if strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("%q is not a valid path", path)
	}
	if strings.TrimSpace(path) == "" {
		return "", errors.New("no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		switch {
		case strings.Contains(err.Error(), "too many links"):
			return "", fmt.Errorf("%s is a loop of symbolic links", abs)
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%s does not exist", abs)
		case errors.Is(err, fs.ErrPermission):
			return "", fmt.Errorf("%s cannot be read: permission denied", abs)
		}
		return "", fmt.Errorf("%s: %w", abs, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return real, nil
}

// Add registers the folder at path. Adding a folder that is already
// registered (by any path that leads to it) returns the existing project
// and created = false; its name and flags are left as they were.
func (r *Registry) Add(ctx context.Context, path, name string, trusted bool) (p Project, created bool, err error) {
	root, err := Canonical(path)
	if err != nil {
		return Project{}, false, fmt.Errorf("add project: %w", err)
	}
	name = cleanName(name)
	if name == "" {
		name = cleanName(filepath.Base(root))
	}
	if err := checkName(name); err != nil {
		return Project{}, false, fmt.Errorf("add project: %w", err)
	}
	row := store.ProjectRow{
		ID: newID(), Name: name, Root: root, Trusted: trusted,
		CreatedAt: r.st.Now().UnixMilli(),
	}
	id, created, err := r.st.InsertProject(ctx, row)
	if err != nil {
		return Project{}, false, err
	}
	if created && trusted {
		if err := r.trust.Set(ctx, root, true); err != nil {
			return Project{}, false, fmt.Errorf("the project was added, but trusting it failed: %w", err)
		}
	}
	depth := refreshCheap
	if created {
		depth = refreshFull
	}
	r.recordFingerprint(ctx, id, root, depth)
	if created {
		r.changed(id)
	}
	p, err = r.Get(ctx, id)
	return p, created, err
}

// cleanName folds white space and drops control characters, so a name can
// neither break a table nor drive the terminal.
func cleanName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	return strings.Join(strings.Fields(name), " ")
}

// idPattern is the shape of project ids; no name may take it, so an id is
// never shadowed by a name.
var idPattern = regexp.MustCompile(`^p[0-9a-f]{8}$`)

// checkName keeps names apart from ids and paths, which PROJECT arguments
// also accept.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("the name is empty")
	case strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator):
		return fmt.Errorf("the name %q contains a path separator; names cannot, so they are never taken for paths", name)
	case name == "." || name == ".." || strings.HasPrefix(name, "~"):
		return fmt.Errorf("the name %q would be taken for a path", name)
	case idPattern.MatchString(name):
		return fmt.Errorf("the name %q looks like a project id; choose another", name)
	}
	return nil
}

// looksLikePath reports whether a PROJECT argument is written as a path.
func looksLikePath(q string) bool {
	return strings.ContainsRune(q, '/') || strings.ContainsRune(q, filepath.Separator) ||
		q == "." || q == ".." || strings.HasPrefix(q, "~")
}

func newID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "p" + hex.EncodeToString(b[:])
}

// Get returns the project with the given id.
func (r *Registry) Get(ctx context.Context, id string) (Project, error) {
	rows, err := r.st.ProjectsWhere(ctx, memory.Namespace, "id", id)
	if err != nil {
		return Project{}, err
	}
	if len(rows) == 0 {
		return Project{}, &NotFoundError{Query: id}
	}
	return r.complete(ctx, fromRow(rows[0]))
}

// Binding returns what a runtime needs of a project before each prompt
// (root, trust, whether the folder is missing), with one prepared query
// and without the memory summary a listing computes, or its folders
// (FoldersOf).
func (r *Registry) Binding(ctx context.Context, id string) (Project, error) {
	// The store's trust flag is history: trust.json decides.
	root, _, err := r.st.ProjectBinding(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Project{}, &NotFoundError{Query: id}
	}
	if err != nil {
		return Project{}, err
	}
	return r.withTrust(ctx, fromRow(store.ProjectRow{ID: id, Root: root})), nil
}

// List returns projects: pinned first, then each group (by group name),
// then the ungrouped, archived last; by name within each. Archived
// projects are included only when all is true. Names that several
// projects share are marked DuplicateName.
func (r *Registry) List(ctx context.Context, all bool) ([]Project, error) {
	rows, err := r.st.Projects(ctx, memory.Namespace)
	if err != nil {
		return nil, err
	}
	folders, err := r.st.AllFolders(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]int, len(rows))
	for _, row := range rows {
		names[foldName(row.Name)]++
	}
	out := make([]Project, 0, len(rows))
	tv := r.view(ctx)
	for _, row := range rows {
		if row.Archived && !all {
			continue
		}
		p := tv.withFolders(tv.apply(fromRow(row)), folders[row.ID])
		p.DuplicateName = names[foldName(row.Name)] > 1
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		si, sj := Section(out[i]), Section(out[j])
		if si != sj {
			return si < sj
		}
		if si == SectionGrouped && out[i].Group != out[j].Group {
			return foldName(out[i].Group) < foldName(out[j].Group)
		}
		return false
	})
	return out, nil
}

// Sections of a listing, in the order they are shown.
const (
	SectionPinned = iota
	SectionGrouped
	SectionUngrouped
	SectionArchived
)

// Section says where a project is listed: archived projects are archived
// whatever else they are; a pinned project is listed with the pinned,
// not in its group.
func Section(p Project) int {
	switch {
	case p.Archived:
		return SectionArchived
	case p.Pinned:
		return SectionPinned
	case p.Group != "":
		return SectionGrouped
	}
	return SectionUngrouped
}

// foldName is the form under which two names (or groups) are one.
func foldName(s string) string { return strings.ToLower(strings.ToUpper(s)) }

// fromRow is a project as stored; its trust is applied from trust.json
// by the caller.
func fromRow(row store.ProjectRow) Project {
	p := Project{
		ID: row.ID, Name: row.Name, Root: row.Root, Pinned: row.Pinned, Archived: row.Archived,
		Sessions: row.Sessions, CreatedAt: row.CreatedAt, Group: row.Group,
	}
	if row.LastOpenedAt != 0 {
		t := row.LastOpenedAt
		p.LastOpenedAt = &t
	}
	p.MemoryEntries, p.MemoryBytes = memory.Summary(row.Memory)
	if fi, err := os.Stat(row.Root); err != nil || !fi.IsDir() {
		p.Missing = err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	return p
}

// Find resolves what a user typed for PROJECT, in this order: an id; a
// path, when the argument is written as one (it contains a separator or is
// . or ..), which need not exist any more so a vanished project can still
// be named, and which is a project's root or one of its other folders; a name, exactly, then ignoring case; and last a bare folder
// name relative to the working directory. A name shared by several
// projects is an *AmbiguousError listing them.
func (r *Registry) Find(ctx context.Context, query string) (Project, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return Project{}, errors.New("no project given")
	}
	if rows, err := r.st.ProjectsWhere(ctx, memory.Namespace, "id", q); err != nil {
		return Project{}, err
	} else if len(rows) == 1 {
		return r.complete(ctx, fromRow(rows[0]))
	}
	if looksLikePath(q) {
		if p, ok, err := r.findPath(ctx, q); ok || err != nil {
			return p, err
		}
		return Project{}, &NotFoundError{Query: q}
	}
	ids, err := r.idsNamed(ctx, q)
	if err != nil {
		return Project{}, err
	}
	switch len(ids) {
	case 1:
		return r.Get(ctx, ids[0])
	case 0:
	default:
		matches := make([]Project, 0, len(ids))
		for _, id := range ids {
			p, err := r.Get(ctx, id)
			if err != nil {
				return Project{}, err
			}
			matches = append(matches, p)
		}
		return Project{}, &AmbiguousError{Query: q, Matches: matches}
	}
	if p, ok, err := r.findPath(ctx, q); ok || err != nil {
		return p, err
	}
	return Project{}, &NotFoundError{Query: q}
}

// findPath looks a path up by its canonical form when it exists and by
// its lexical absolute form when it has vanished, as a project's root
// and then as one of a project's other folders.
func (r *Registry) findPath(ctx context.Context, q string) (Project, bool, error) {
	var candidates []string
	if root, err := Canonical(q); err == nil {
		candidates = append(candidates, root)
	}
	if abs, err := filepath.Abs(q); err == nil {
		candidates = append(candidates, abs)
	}
	for _, c := range candidates {
		rows, err := r.st.ProjectsWhere(ctx, memory.Namespace, "root", c)
		if err != nil {
			return Project{}, false, err
		}
		if len(rows) == 1 {
			p, err := r.complete(ctx, fromRow(rows[0]))
			return p, err == nil, err
		}
	}
	for _, c := range candidates {
		id, found, err := r.st.FolderOwner(ctx, c)
		if err != nil {
			return Project{}, false, err
		}
		if found {
			p, err := r.Get(ctx, id)
			return p, err == nil, err
		}
	}
	return Project{}, false, nil
}

// idsNamed returns the ids of the projects called name, ignoring case.
// Names are unique that way, so more than one id means a database from
// before they were.
func (r *Registry) idsNamed(ctx context.Context, name string) ([]string, error) {
	all, err := r.st.ProjectNames(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, n := range all {
		if strings.EqualFold(n.Name, cleanName(name)) {
			ids = append(ids, n.ID)
		}
	}
	return ids, nil
}

// SameName returns the other projects called name (ignoring case), so
// callers can warn that the name does not pick one project.
func (r *Registry) SameName(ctx context.Context, id, name string) ([]Project, error) {
	ids, err := r.idsNamed(ctx, name)
	if err != nil {
		return nil, err
	}
	var out []Project
	for _, other := range ids {
		if other == id {
			continue
		}
		p, err := r.Get(ctx, other)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Rename gives a project a new display name. A name another project has,
// ignoring case, is refused with a *store.NameTakenError naming it.
func (r *Registry) Rename(ctx context.Context, id, name string) error {
	name = cleanName(name)
	if err := checkName(name); err != nil {
		return fmt.Errorf("rename project: %w", err)
	}
	if err := r.st.RenameProject(ctx, id, name); err != nil {
		return fmt.Errorf("rename project: %w", err)
	}
	r.changed(id)
	return nil
}

// MaxGroupLen is the longest group name, in bytes.
const MaxGroupLen = 64

// SetGroup puts a project in a group, creating the group by naming it;
// "" takes it out of any group. A name that differs from an existing
// group only in case joins that group, spelled as it is.
func (r *Registry) SetGroup(ctx context.Context, id, group string) (string, error) {
	group = cleanName(group)
	if len(group) > MaxGroupLen {
		return "", fmt.Errorf("the group name is %d bytes; at most %d fit", len(group), MaxGroupLen)
	}
	if group != "" {
		groups, err := r.Groups(ctx)
		if err != nil {
			return "", err
		}
		for _, g := range groups {
			if strings.EqualFold(g, group) {
				group = g
				break
			}
		}
	}
	if err := r.st.UpdateProject(ctx, id, "group_name", group); err != nil {
		return "", err
	}
	r.changed(id)
	return group, nil
}

// Groups returns the names of the groups that hold a project, sorted
// ignoring case.
func (r *Registry) Groups(ctx context.Context) ([]string, error) {
	rows, err := r.st.Projects(ctx, "")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, row := range rows {
		if row.Group != "" && !seen[foldName(row.Group)] {
			seen[foldName(row.Group)] = true
			out = append(out, row.Group)
		}
	}
	sort.Slice(out, func(i, j int) bool { return foldName(out[i]) < foldName(out[j]) })
	return out, nil
}

// SetPinned pins or unpins a project.
func (r *Registry) SetPinned(ctx context.Context, id string, v bool) error {
	return r.changedIf(id, r.st.UpdateProject(ctx, id, "pinned", v))
}

// SetArchived archives or restores a project. Archiving hides it from the
// default listing; nothing is deleted.
func (r *Registry) SetArchived(ctx context.Context, id string, v bool) error {
	return r.changedIf(id, r.st.UpdateProject(ctx, id, "archived", v))
}

// SetTrusted trusts or untrusts a project: it records the decision for
// the project's folder in trust.json, where pi reads it too. Only trusted
// projects get nested instructions and their .pi settings, skills and
// prompt templates. The store's old flag follows along, for an older
// pi-tui opening the same database, but is never read.
func (r *Registry) SetTrusted(ctx context.Context, id string, v bool) error {
	root, _, err := r.st.ProjectBinding(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return &NotFoundError{Query: id}
	}
	if err != nil {
		return err
	}
	r.migrate(ctx) // the old flags go first, so this decision is not overwritten
	if err := r.trust.Set(ctx, root, v); err != nil {
		return err
	}
	return r.changedIf(id, r.st.UpdateProject(ctx, id, "trusted", v))
}

// MarkOpened records that the project was opened now, and refreshes its
// fingerprint while its folder is there (cheaply: see RefreshFingerprints).
func (r *Registry) MarkOpened(ctx context.Context, id string) error {
	if err := r.st.UpdateProject(ctx, id, "last_opened_at", r.st.Now().UnixMilli()); err != nil {
		return err
	}
	if root, _, err := r.st.ProjectBinding(ctx, id); err == nil {
		r.recordFingerprint(ctx, id, root, refreshCheap)
	}
	r.changed(id)
	return nil
}

// Remove forgets a project: its row, its sessions, its memory and its approval
// rules (a later project in the same folder starts with none). The folder
// on disk is never touched.
func (r *Registry) Remove(ctx context.Context, id string) error {
	if err := r.st.DeleteProject(ctx, id, memory.Namespace, approvals.Namespace); err != nil {
		return err
	}
	r.forgetFingerprint(ctx, id)
	r.changed(id)
	return nil
}

package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/store"
)

// A project has an ordered list of folders (ADR 0085). The first is its
// primary root, the project's Root: sessions run there, its memory and
// root instructions come from there, and it stays first for as long as
// the project exists (relocate moves it, with the project). The others
// are added and removed by the user; each is canonical, trusted on its
// own (pi's trust.json, as a root is), and neither inside nor around
// another folder of the project, so every path of the project belongs to
// exactly one folder. A canonical path is a folder of one project at most.

// Folder is one folder of a project.
type Folder struct {
	// Name tells the folder apart within its project ("web"): it labels
	// the folder's instruction files and its files in @ completion
	// (@web:src/x.ts). The primary root's is its base name.
	Name    string `json:"name"`
	Path    string `json:"path"` // canonical
	Trusted bool   `json:"trusted"`
	Primary bool   `json:"primary"`
	Missing bool   `json:"missing"`
}

// FolderOptions tune AddFolder and RelocateFolder.
type FolderOptions struct {
	// Places, when set, has a folder too broad to be a project (/, home,
	// one holding pi's agent dir or pi-tui's data) refused with a
	// *BroadRootError, as projects add does, unless AllowBroad.
	Places     *paths.Places
	AllowBroad bool
}

// PrimaryFolderError refuses to remove or move the primary root apart
// from its project.
type PrimaryFolderError struct {
	Project Project
	Action  string // "removed", "relocated"
}

func (e *PrimaryFolderError) Error() string {
	if e.Action == "relocated" {
		return fmt.Sprintf("%s is the primary root of %s: it moves with the project (pi-tui projects relocate %s NEWPATH)", e.Project.Root, e.Project.Name, e.Project.ID)
	}
	return fmt.Sprintf("%s is the primary root of %s and cannot be removed from it; its sessions, memory and root instructions live there (remove the project instead)", e.Project.Root, e.Project.Name)
}

// NestedFolderError refuses a folder inside or around another folder of
// the same project: a path must belong to one folder only.
type NestedFolderError struct {
	Path   string
	Other  Folder
	Inside bool // Path lies inside Other; else Path holds Other
}

func (e *NestedFolderError) Error() string {
	what := "folder " + strconv.Quote(e.Other.Name)
	if e.Other.Primary {
		what = "the primary root"
	}
	if e.Inside {
		return fmt.Sprintf("%s is inside %s (%s) of this project: its files are the project's already", e.Path, what, e.Other.Path)
	}
	return fmt.Sprintf("%s holds %s (%s) of this project: the folders of a project may not nest", e.Path, what, e.Other.Path)
}

// FolderInUseError refuses to remove a folder that sessions of the project
// worked in, naming them, unless the removal is forced.
type FolderInUseError struct {
	Project  Project
	Folder   Folder
	Sessions []string
}

func (e *FolderInUseError) Error() string {
	ids := e.Sessions
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], fmt.Sprintf(" and %d more", len(e.Sessions)-5)
	}
	n := "1 session"
	if len(e.Sessions) != 1 {
		n = strconv.Itoa(len(e.Sessions)) + " sessions"
	}
	return fmt.Sprintf("%s of %s worked in folder %q (%s): %s%s; removing it keeps them, but their agents can no longer reach it and undo there is refused; remove it anyway with --force",
		n, e.Project.Name, e.Folder.Name, e.Folder.Path, strings.Join(ids, ", "), more)
}

// FolderNotFoundError says no folder of a project matches what was typed.
type FolderNotFoundError struct {
	Project Project
	Query   string
}

func (e *FolderNotFoundError) Error() string {
	return fmt.Sprintf("%s has no folder %q; see pi-tui projects folders %s", e.Project.Name, e.Query, e.Project.ID)
}

// FolderStillThereError refuses to relocate a folder that has not moved.
type FolderStillThereError struct{ Folder Folder }

func (e *FolderStillThereError) Error() string {
	return fmt.Sprintf("folder %q still exists at %s; relocate is for a folder that moved (add the other one as a folder of its own)", e.Folder.Name, e.Folder.Path)
}

// primaryFolder is the folder a project's root makes.
func primaryFolder(p Project) Folder {
	return Folder{Name: defaultFolderName(p.Root), Path: p.Root, Trusted: p.Trusted, Primary: true, Missing: p.Missing}
}

// fromFolderRow is a stored folder with its presence on disk; its trust
// is applied by the caller.
func fromFolderRow(row store.FolderRow) Folder {
	return Folder{Name: row.Name, Path: row.Path, Missing: folderMissing(row.Path)}
}

// folderMissing reports a folder that is gone (or is no folder any more);
// a folder that cannot be looked at for another reason is not said to be
// missing.
func folderMissing(path string) bool {
	fi, err := os.Stat(path)
	if err == nil {
		return !fi.IsDir()
	}
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// withFolders gives p its folders: the primary root, then rows, each with
// its trust as tv decides.
func (tv trustView) withFolders(p Project, rows []store.FolderRow) Project {
	p.Folders = make([]Folder, 0, 1+len(rows))
	p.Folders = append(p.Folders, primaryFolder(p))
	for _, row := range rows {
		f := fromFolderRow(row)
		f.Trusted = tv.trusted(f.Path)
		p.Folders = append(p.Folders, f)
	}
	return p
}

// complete reads p's folders from the store and applies trust to p and
// them.
func (r *Registry) complete(ctx context.Context, p Project) (Project, error) {
	rows, err := r.st.ProjectFolders(ctx, p.ID)
	if err != nil {
		return Project{}, err
	}
	tv := r.view(ctx)
	return tv.withFolders(tv.apply(p), rows), nil
}

// Folders returns a project's folders, the primary root first.
func (r *Registry) Folders(ctx context.Context, projectID string) ([]Folder, error) {
	p, err := r.Get(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return p.Folders, nil
}

// FoldersOf returns the folders of the project whose primary root is root
// (canonical), the primary first, with each folder's trust and whether it
// is missing: the read-only view the engines confine tools to and deliver
// instructions for. A root that is no project's primary root is a
// *NotFoundError.
func (r *Registry) FoldersOf(ctx context.Context, root string) ([]Folder, error) {
	rows, err := r.st.ProjectsWhere(ctx, "", "root", root)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &NotFoundError{Query: root}
	}
	p, err := r.complete(ctx, fromRow(rows[0]))
	if err != nil {
		return nil, err
	}
	return p.Folders, nil
}

// FoldersOfBinding is FoldersOf for a project as Binding returned it, for
// the runtimes' build before every prompt: one indexed read for a project
// of one folder (its trust is the binding's), pi's trust.json read again
// only for a project with others.
func (r *Registry) FoldersOfBinding(ctx context.Context, p Project) ([]Folder, error) {
	rows, err := r.st.ProjectFolders(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return []Folder{primaryFolder(p)}, nil
	}
	return r.view(ctx).withFolders(p, rows).Folders, nil
}

// FindFolder returns the folder of p that query names: its path (the
// canonical one when it exists, else as written, so a vanished folder can
// still be named) or, when query is not written as a path, its name
// (ignoring case).
func (r *Registry) FindFolder(p Project, query string) (Folder, error) {
	q := strings.TrimSpace(query)
	if q == "" {
		return Folder{}, errors.New("no folder given")
	}
	var candidates []string
	if c, err := Canonical(q); err == nil {
		candidates = append(candidates, c)
	}
	if abs, err := filepath.Abs(q); err == nil {
		candidates = append(candidates, abs)
	}
	for _, c := range candidates {
		for _, f := range p.Folders {
			if f.Path == c {
				return f, nil
			}
		}
	}
	if !looksLikePath(q) {
		for _, f := range p.Folders {
			if strings.EqualFold(f.Name, cleanName(q)) {
				return f, nil
			}
		}
	}
	return Folder{}, &FolderNotFoundError{Project: p, Query: q}
}

// AddFolder adds the folder at path as p's last folder. It is refused
// when the folder is any project's folder already (*store.FolderTakenError),
// lies inside or around another folder of the project (*NestedFolderError),
// is too broad (*BroadRootError, when opts.Places is set and not
// opts.AllowBroad), or has a name another folder of the project has. A
// link is followed: the folder is where it leads, and the rules apply
// there. name "" takes the folder's base name, made unique in the project
// with a number. trusted records trust for the folder in trust.json.
func (r *Registry) AddFolder(ctx context.Context, projectID, path, name string, trusted bool, opts FolderOptions) (Folder, error) {
	p, err := r.Get(ctx, projectID)
	if err != nil {
		return Folder{}, err
	}
	canon, err := Canonical(path)
	if err != nil {
		return Folder{}, fmt.Errorf("add a folder to %s: %w", p.Name, err)
	}
	// What can only be refused goes before what may be confirmed.
	if err := r.refuseTaken(ctx, canon); err != nil {
		return Folder{}, fmt.Errorf("add folder %s: %w", canon, err)
	}
	if err := notNested(canon, p.Folders); err != nil {
		return Folder{}, fmt.Errorf("add folder %s: %w", canon, err)
	}
	if err := r.checkFolderPlace(ctx, canon, opts); err != nil {
		return Folder{}, err
	}
	explicit := cleanName(name) != ""
	name = cleanName(name)
	if !explicit {
		name = defaultFolderName(canon)
	} else if err := checkFolderName(name); err != nil {
		return Folder{}, fmt.Errorf("add a folder to %s: %w", p.Name, err)
	}
	row := store.FolderRow{ProjectID: p.ID, Path: canon, CreatedAt: r.st.Now().UnixMilli()}
	_, err = r.st.InsertFolder(ctx, row, func(set store.FolderSet, row *store.FolderRow) error {
		folders := setFolders(set)
		if err := notNested(canon, folders); err != nil {
			return err
		}
		row.Name, err = uniqueFolderName(name, explicit, folders)
		return err
	})
	if err != nil {
		return Folder{}, err
	}
	if trusted {
		r.migrate(ctx)
		if err := r.trust.Set(ctx, canon, true); err != nil {
			r.changed(p.ID)
			return Folder{}, fmt.Errorf("the folder was added, but trusting it failed: %w", err)
		}
	}
	r.changed(p.ID)
	return r.folder(ctx, p.ID, canon)
}

// refuseTaken returns a *store.FolderTakenError when canon is a folder
// of a project already (the store checks again as it writes).
func (r *Registry) refuseTaken(ctx context.Context, canon string) error {
	other, found, err := r.findPath(ctx, canon)
	if err != nil || !found {
		return err
	}
	return &store.FolderTakenError{Path: canon, Other: store.ProjectRow{ID: other.ID, Name: other.Name, Root: other.Root}, Root: other.Root == canon}
}

// checkFolderPlace refuses a folder too broad to be one, as adding it as
// a project would.
func (r *Registry) checkFolderPlace(ctx context.Context, canon string, opts FolderOptions) error {
	if opts.Places == nil || opts.AllowBroad {
		return nil
	}
	if what := broad(canon, *opts.Places); what != "" {
		return &BroadRootError{Root: canon, What: what}
	}
	return nil
}

// folder returns the folder of project id at path, as now stored.
func (r *Registry) folder(ctx context.Context, id, path string) (Folder, error) {
	p, err := r.Get(ctx, id)
	if err != nil {
		return Folder{}, err
	}
	for _, f := range p.Folders {
		if f.Path == path {
			return f, nil
		}
	}
	return Folder{}, &FolderNotFoundError{Project: p, Query: path}
}

// setFolders is a stored folder set as folders, the primary first (names
// and paths only: what the rules need).
func setFolders(set store.FolderSet) []Folder {
	out := []Folder{{Name: defaultFolderName(set.Root), Path: set.Root, Primary: true}}
	for _, f := range set.Folders {
		out = append(out, Folder{Name: f.Name, Path: f.Path})
	}
	return out
}

// notNested refuses path when it is inside or around one of folders.
func notNested(path string, folders []Folder) error {
	for _, f := range folders {
		switch {
		case f.Path == path:
			return fmt.Errorf("%s is already folder %q of this project", path, f.Name)
		case fsutil.Within(f.Path, path):
			return &NestedFolderError{Path: path, Other: f, Inside: true}
		case fsutil.Within(path, f.Path):
			return &NestedFolderError{Path: path, Other: f}
		}
	}
	return nil
}

// defaultFolderName is a folder's name when the user gives none: its base
// name, cleaned, with the characters a name may not hold replaced.
func defaultFolderName(path string) string {
	n := cleanName(filepath.Base(path))
	n = strings.NewReplacer("/", "-", ":", "-", string(filepath.Separator), "-").Replace(n)
	if n == "" || n == "." || n == ".." || strings.HasPrefix(n, "~") {
		n = "folder" + strings.TrimLeft(n, ".~")
	}
	return n
}

// MaxFolderNameLen is the longest folder name, in bytes.
const MaxFolderNameLen = 64

// checkFolderName keeps names usable where they are written: in
// @name:path (no colon), as a label (no separator), never taken for a
// path.
func checkFolderName(name string) error {
	switch {
	case name == "":
		return errors.New("the folder name is empty")
	case len(name) > MaxFolderNameLen:
		return fmt.Errorf("the folder name is %d bytes; at most %d fit", len(name), MaxFolderNameLen)
	case strings.ContainsAny(name, "/:"+string(filepath.Separator)):
		return fmt.Errorf("the folder name %q contains / or :; a folder's files are written name:path, so names cannot", name)
	case name == "." || name == ".." || strings.HasPrefix(name, "~"):
		return fmt.Errorf("the folder name %q would be taken for a path", name)
	}
	return nil
}

// uniqueFolderName returns name when no folder of folders has it
// (ignoring case). A name the user gave is then refused; a default one
// gets the first free number ("web-2").
func uniqueFolderName(name string, explicit bool, folders []Folder) (string, error) {
	taken := func(n string) *Folder {
		for i := range folders {
			if strings.EqualFold(folders[i].Name, n) {
				return &folders[i]
			}
		}
		return nil
	}
	if name = truncateName(name); taken(name) == nil {
		return name, nil
	}
	if explicit {
		f := taken(name)
		return "", fmt.Errorf("the folder name %q is taken by %s in this project; choose another with --name", name, f.Path)
	}
	for i := 2; ; i++ {
		n := truncateName(name[:min(len(name), MaxFolderNameLen-8)]) + "-" + strconv.Itoa(i)
		if taken(n) == nil {
			return n, nil
		}
	}
}

// truncateName keeps a default name within MaxFolderNameLen bytes, on a
// character boundary.
func truncateName(n string) string {
	if len(n) <= MaxFolderNameLen {
		return n
	}
	n = n[:MaxFolderNameLen]
	return strings.ToValidUTF8(n, "")
}

// projectFolder returns project id and its folder that query names.
func (r *Registry) projectFolder(ctx context.Context, id, query string) (Project, Folder, error) {
	p, err := r.Get(ctx, id)
	if err != nil {
		return Project{}, Folder{}, err
	}
	f, err := r.FindFolder(p, query)
	return p, f, err
}

// RemoveFolder removes the folder of project id that query names (see
// FindFolder). The primary root cannot be removed (*PrimaryFolderError).
// A folder that sessions of the project worked in (NoteFolderUse) is
// refused with a *FolderInUseError naming them unless force: the sessions
// then stay with the project, and the notes go with the folder. The
// folder on disk and its trust decision are never touched.
func (r *Registry) RemoveFolder(ctx context.Context, id, query string, force bool) (Folder, error) {
	p, f, err := r.projectFolder(ctx, id, query)
	if err != nil {
		return Folder{}, err
	}
	if f.Primary {
		return Folder{}, &PrimaryFolderError{Project: p, Action: "removed"}
	}
	err = r.st.DeleteFolder(ctx, p.ID, f.Path, func(sessions []string) error {
		if len(sessions) > 0 && !force {
			return &FolderInUseError{Project: p, Folder: f, Sessions: sessions}
		}
		return nil
	})
	if err != nil {
		return Folder{}, err
	}
	r.changed(p.ID)
	return f, nil
}

// SetFolderTrusted trusts or untrusts one folder of a project in
// trust.json; for the primary root it is SetTrusted.
func (r *Registry) SetFolderTrusted(ctx context.Context, id, query string, v bool) (Folder, error) {
	p, f, err := r.projectFolder(ctx, id, query)
	if err != nil {
		return Folder{}, err
	}
	if f.Primary {
		err = r.SetTrusted(ctx, p.ID, v)
	} else {
		r.migrate(ctx)
		err = r.changedIf(p.ID, r.trust.Set(ctx, f.Path, v))
	}
	if err != nil {
		return Folder{}, err
	}
	return r.folder(ctx, p.ID, f.Path)
}

// RelocateFolder takes a folder of project id that moved (it is missing)
// to newPath, under the rules AddFolder applies, keeping its name, place
// and the notes of its sessions; its trust.json decision moves with it.
// The primary root moves with its project (Relocate).
func (r *Registry) RelocateFolder(ctx context.Context, id, query, newPath string, opts FolderOptions) (Folder, error) {
	p, f, err := r.projectFolder(ctx, id, query)
	if err != nil {
		return Folder{}, err
	}
	if f.Primary {
		return Folder{}, &PrimaryFolderError{Project: p, Action: "relocated"}
	}
	canon, err := Canonical(newPath)
	if err != nil {
		return Folder{}, fmt.Errorf("relocate folder %q: %w", f.Name, err)
	}
	if !f.Missing {
		return Folder{}, &FolderStillThereError{Folder: f}
	}
	others := make([]Folder, 0, len(p.Folders))
	for _, o := range p.Folders {
		if o.Path != f.Path {
			others = append(others, o)
		}
	}
	if err := notNested(canon, others); err != nil {
		return Folder{}, fmt.Errorf("relocate folder %q: %w", f.Name, err)
	}
	if err := r.refuseTaken(ctx, canon); err != nil {
		return Folder{}, fmt.Errorf("relocate folder %q: %w", f.Name, err)
	}
	if err := r.checkFolderPlace(ctx, canon, opts); err != nil {
		return Folder{}, err
	}
	err = r.st.RelocateFolder(ctx, p.ID, f.Path, canon, func(set store.FolderSet) error {
		var others []Folder
		for _, o := range setFolders(set) {
			if o.Path != f.Path {
				others = append(others, o)
			}
		}
		return notNested(canon, others)
	})
	if err != nil {
		return Folder{}, err
	}
	r.migrate(ctx)
	err = r.trust.Update(ctx, func(d Decisions) error {
		if v, ok := d[jsString(f.Path)]; ok {
			delete(d, jsString(f.Path))
			d[jsString(canon)] = v
		}
		return nil
	})
	r.changed(p.ID)
	if err != nil {
		return Folder{}, fmt.Errorf("folder %q was relocated to %s, but moving its trust decision failed: %w", f.Name, canon, err)
	}
	return r.folder(ctx, p.ID, canon)
}

// NoteFolderUse records that session sessionID of project id worked in
// the folder holding path (the host calls it when a tool of the session
// first reaches a folder other than the primary root), so removing that
// folder can name the session. A path in the primary root or in no
// folder of the project notes nothing.
func (r *Registry) NoteFolderUse(ctx context.Context, id, sessionID, path string) error {
	rows, err := r.st.ProjectFolders(ctx, id)
	if err != nil {
		return err
	}
	for _, f := range rows {
		if fsutil.Within(f.Path, filepath.Clean(path)) {
			return r.st.NoteFolderSession(ctx, id, f.Path, sessionID)
		}
	}
	return nil
}

// FolderSessions returns the existing sessions of project id noted as
// having worked in the folder that query names.
func (r *Registry) FolderSessions(ctx context.Context, id, query string) ([]string, error) {
	p, f, err := r.projectFolder(ctx, id, query)
	if err != nil || f.Primary {
		return nil, err
	}
	return r.st.FolderSessions(ctx, p.ID, f.Path)
}

// Holding finds the project with a folder that is dir or holds it, the
// deepest such folder when projects nest, and that folder. It looks each
// of dir's canonical ancestors up by root and by folder: a handful of
// indexed reads, whatever the number of projects.
func (r *Registry) Holding(ctx context.Context, dir string) (Project, Folder, bool, error) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return Project{}, Folder{}, false, err
		}
		dir = abs
	}
	for d := dir; ; d = filepath.Dir(d) {
		rows, err := r.st.ProjectsWhere(ctx, memory.Namespace, "root", d)
		if err != nil {
			return Project{}, Folder{}, false, err
		}
		id := ""
		if len(rows) == 1 {
			id = rows[0].ID
		} else if owner, found, err := r.st.FolderOwner(ctx, d); err != nil {
			return Project{}, Folder{}, false, err
		} else if found {
			id = owner
		}
		if id != "" {
			p, err := r.Get(ctx, id)
			if err != nil {
				return Project{}, Folder{}, false, err
			}
			for _, f := range p.Folders {
				if f.Path == d {
					return p, f, true, nil
				}
			}
		}
		if filepath.Dir(d) == d {
			return Project{}, Folder{}, false, nil
		}
	}
}

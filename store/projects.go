package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// ProjectRow is one registered project as stored, with the counts a
// listing needs. Memory is the raw kv value of the project's memory (empty
// when it has none); the store does not interpret it.
type ProjectRow struct {
	ID           string
	Name         string
	Root         string
	Pinned       bool
	Archived     bool
	Trusted      bool
	CreatedAt    int64 // unix ms
	LastOpenedAt int64 // unix ms; 0 = never
	Sessions     int
	Memory       string
	Group        string // '' = no group
}

const projectColumns = `p.id, p.name, p.root, p.pinned, p.archived, p.trusted, p.created_at,
	coalesce(p.last_opened_at, 0),
	(SELECT count(*) FROM session_files f WHERE f.project_id = p.id),
	coalesce((SELECT k.value FROM kv k WHERE k.namespace = ? AND k.key = p.root), ''),
	p.group_name`

func scanProject(sc interface{ Scan(...any) error }) (ProjectRow, error) {
	var p ProjectRow
	err := sc.Scan(&p.ID, &p.Name, &p.Root, &p.Pinned, &p.Archived, &p.Trusted, &p.CreatedAt,
		&p.LastOpenedAt, &p.Sessions, &p.Memory, &p.Group)
	return p, err
}

// Projects returns every project, archived ones included, ordered by name.
// memoryNamespace names the kv namespace whose value keyed by the project's
// root is returned in Memory.
func (s *Store) Projects(ctx context.Context, memoryNamespace string) ([]ProjectRow, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects p ORDER BY p.name COLLATE NOCASE, p.root`, memoryNamespace)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", Describe(err))
	}
	defer rows.Close()
	var out []ProjectRow
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, fmt.Errorf("list projects: %w", Describe(err))
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list projects: %w", Describe(err))
	}
	return out, nil
}

// ProjectsWhere returns the projects whose column equals value; column is
// one of "id", "name", "root".
func (s *Store) ProjectsWhere(ctx context.Context, memoryNamespace, column, value string) ([]ProjectRow, error) {
	switch column {
	case "id", "name", "root":
	default:
		return nil, fmt.Errorf("projects: cannot look up by %q", column)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects p WHERE p.`+column+` = ? ORDER BY p.root`,
		memoryNamespace, value)
	if err != nil {
		return nil, fmt.Errorf("find project: %w", Describe(err))
	}
	defer rows.Close()
	var out []ProjectRow
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, fmt.Errorf("find project: %w", Describe(err))
		}
		out = append(out, p)
	}
	return out, Describe(rows.Err())
}

// InsertProject adds p unless a project with the same root exists, in which
// case the existing project's id is returned and created is false. A root
// that is a folder of another project is a *FolderTakenError. The checks
// and the insert share one transaction, so two processes adding the same
// folder at once still produce one row.
func (s *Store) InsertProject(ctx context.Context, p ProjectRow) (id string, created bool, err error) {
	err = s.Write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM projects WHERE root = ?`, p.Root).Scan(&id)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return Describe(err)
		}
		// A folder of another project is not a project of its own.
		if err := takenBy(ctx, tx, p.Root); err != nil {
			return err
		}
		if err := nameFree(ctx, tx, "", p.Name); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO projects (id, name, root, pinned, archived, trusted, created_at, last_opened_at, group_name)
			VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, 0), ?)`,
			p.ID, p.Name, p.Root, p.Pinned, p.Archived, p.Trusted, p.CreatedAt, p.LastOpenedAt, p.Group)
		if err != nil {
			return Describe(err)
		}
		id, created = p.ID, true
		return nil
	})
	if err != nil {
		return "", false, fmt.Errorf("add project %s: %w", p.Root, err)
	}
	return id, created, nil
}

// UpdateProject sets one column of a project; column is one of
// "pinned", "archived", "trusted", "last_opened_at", "group_name" (names
// change through RenameProject, which keeps them unique).
func (s *Store) UpdateProject(ctx context.Context, id, column string, value any) error {
	switch column {
	case "pinned", "archived", "trusted", "last_opened_at", "group_name":
	default:
		return fmt.Errorf("update project: unknown column %q", column)
	}
	return s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE projects SET `+column+` = ? WHERE id = ?`, value, id)
		if err != nil {
			return fmt.Errorf("update project %s: %w", id, Describe(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("update project %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// DeleteProject removes a project, its sessions (by cascade) and the kv
// rows of the given namespaces keyed by its root, in one transaction.
func (s *Store) DeleteProject(ctx context.Context, id string, kvNamespaces ...string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		var root string
		if err := tx.QueryRowContext(ctx, `SELECT root FROM projects WHERE id = ?`, id).Scan(&root); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("remove project %s: %w", id, ErrNotFound)
			}
			return fmt.Errorf("remove project %s: %w", id, Describe(err))
		}
		if len(kvNamespaces) > 0 {
			q := `DELETE FROM kv WHERE key = ? AND namespace IN (?` + strings.Repeat(",?", len(kvNamespaces)-1) + `)`
			args := []any{root}
			for _, ns := range kvNamespaces {
				args = append(args, ns)
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("remove project %s: %w", id, Describe(err))
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, id); err != nil {
			return fmt.Errorf("remove project %s: %w", id, Describe(err))
		}
		return nil
	})
}

// InsertSession records a session of a project. Sessions get their full
// shape with the runtime; the registry needs them to exist, be counted and
// be removed with their project.
func (s *Store) InsertSession(ctx context.Context, id, projectID, title string) error {
	now := s.now().UnixMilli()
	return s.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, project_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			id, projectID, title, now, now)
		if err == nil {
			_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_files (project_id, id) VALUES (?, ?)`, projectID, id)
		}
		if err != nil {
			return fmt.Errorf("add session: %w", Describe(err))
		}
		return nil
	})
}

// IndexSession notes that a project has a session file with the given id
// (the index the Projects list counts from; the file is the session).
func (s *Store) IndexSession(ctx context.Context, projectID, id string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_files (project_id, id) VALUES (?, ?)`, projectID, id); err != nil {
			return fmt.Errorf("index session %s: %w", id, Describe(err))
		}
		return nil
	})
}

// UnindexSession forgets one session file of a project's index.
func (s *Store) UnindexSession(ctx context.Context, projectID, id string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_files WHERE project_id = ? AND id = ?`, projectID, id); err != nil {
			return fmt.Errorf("unindex session %s: %w", id, Describe(err))
		}
		return nil
	})
}

// SessionIndex returns the session ids indexed for every project.
func (s *Store) SessionIndex(ctx context.Context) (map[string][]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT project_id, id FROM session_files ORDER BY project_id, id`)
	if err != nil {
		return nil, fmt.Errorf("read the session index: %w", Describe(err))
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var p, id string
		if err := rows.Scan(&p, &id); err != nil {
			return nil, fmt.Errorf("read the session index: %w", Describe(err))
		}
		out[p] = append(out[p], id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the session index: %w", Describe(err))
	}
	return out, nil
}

// SetSessionIndex replaces the ids indexed for a project with ids, the
// session files found in its folder, in one transaction. A project that no
// longer exists is left alone.
func (s *Store) SetSessionIndex(ctx context.Context, projectID string, ids []string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects WHERE id = ?`, projectID).Scan(&n); err != nil || n == 0 {
			return Describe(err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_files WHERE project_id = ?`, projectID); err != nil {
			return fmt.Errorf("index sessions: %w", Describe(err))
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_files (project_id, id) VALUES (?, ?)`, projectID, id); err != nil {
				return fmt.Errorf("index sessions: %w", Describe(err))
			}
		}
		return nil
	})
}

// ProjectBinding returns what a runtime needs of a project before each
// prompt, with a prepared statement: its root and whether it is trusted.
func (s *Store) ProjectBinding(ctx context.Context, id string) (root string, trusted bool, err error) {
	err = s.binding.QueryRowContext(ctx, id).Scan(&root, &trusted)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, fmt.Errorf("project %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return "", false, fmt.Errorf("project %s: %w", id, Describe(err))
	}
	return root, trusted, nil
}

// NameTakenError says another project already has a name (ignoring case).
type NameTakenError struct {
	Name  string
	Other ProjectRow // id, name and root of the project holding it
}

func (e *NameTakenError) Error() string {
	return fmt.Sprintf("the name %q is taken by project %s (%s at %s); choose another", e.Name, e.Other.ID, e.Other.Name, e.Other.Root)
}

// nameFree returns a *NameTakenError when a project other than id has
// name, ignoring case (Unicode simple folding, so "Über" and "über" are
// one name). It runs inside the writer's transaction, so two processes
// naming two projects alike at once cannot both succeed. Names are
// compared in Go: SQLite's NOCASE folds ASCII only.
func nameFree(ctx context.Context, tx *sql.Tx, id, name string) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, name, root FROM projects WHERE id != ?`, id)
	if err != nil {
		return Describe(err)
	}
	defer rows.Close()
	for rows.Next() {
		var o ProjectRow
		if err := rows.Scan(&o.ID, &o.Name, &o.Root); err != nil {
			return Describe(err)
		}
		if strings.EqualFold(o.Name, name) {
			return &NameTakenError{Name: name, Other: o}
		}
	}
	return Describe(rows.Err())
}

// RenameProject gives a project a name no other project has (ignoring
// case); a project may change the case of its own name.
func (s *Store) RenameProject(ctx context.Context, id, name string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		if err := nameFree(ctx, tx, id, name); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE projects SET name = ? WHERE id = ?`, name, id)
		if err != nil {
			return fmt.Errorf("rename project %s: %w", id, Describe(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("rename project %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// ProjectName is a project's id and name, for resolving what a user typed
// without reading every project's memory.
type ProjectName struct{ ID, Name string }

// ProjectNames returns the id and name of every project.
func (s *Store) ProjectNames(ctx context.Context) ([]ProjectName, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, name FROM projects ORDER BY root`)
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", Describe(err))
	}
	defer rows.Close()
	var out []ProjectName
	for rows.Next() {
		var n ProjectName
		if err := rows.Scan(&n.ID, &n.Name); err != nil {
			return nil, fmt.Errorf("list projects: %w", Describe(err))
		}
		out = append(out, n)
	}
	return out, Describe(rows.Err())
}

// RootTakenError says a folder is already another project's root.
type RootTakenError struct {
	Root  string
	Other ProjectRow // id and name of the project there
}

func (e *RootTakenError) Error() string {
	return fmt.Sprintf("%s is already project %s (%s); remove that one first if this one should take its place", e.Root, e.Other.ID, e.Other.Name)
}

// RelocateProject moves project id to newRoot in one transaction: its row
// takes the new root (sessions, pin, group and flags stay with the row)
// and every kv row keyed by the old root (its memory, in any namespace)
// is re-keyed to the new root, so the old key is gone. A new root that is
// another project's (*RootTakenError), a folder of any project
// (*FolderTakenError), or that already has kv rows of its own, is refused
// and nothing changes. It returns the old root.
func (s *Store) RelocateProject(ctx context.Context, id, newRoot string) (oldRoot string, err error) {
	err = s.Write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT root FROM projects WHERE id = ?`, id).Scan(&oldRoot); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("relocate project %s: %w", id, ErrNotFound)
			}
			return fmt.Errorf("relocate project %s: %w", id, Describe(err))
		}
		if oldRoot == newRoot {
			return nil
		}
		var other ProjectRow
		err := tx.QueryRowContext(ctx, `SELECT id, name FROM projects WHERE root = ?`, newRoot).Scan(&other.ID, &other.Name)
		if err == nil {
			return &RootTakenError{Root: newRoot, Other: other}
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("relocate project %s: %w", id, Describe(err))
		}
		if err := takenBy(ctx, tx, newRoot); err != nil {
			return err // a folder of a project, this one's included
		}
		var ns string
		err = tx.QueryRowContext(ctx, `SELECT namespace FROM kv WHERE key = ? AND namespace IN (SELECT namespace FROM kv WHERE key = ?) LIMIT 1`, newRoot, oldRoot).Scan(&ns)
		if err == nil {
			return fmt.Errorf("relocate project %s: %s already has %s data of its own; nothing was moved", id, newRoot, ns)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("relocate project %s: %w", id, Describe(err))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET root = ? WHERE id = ?`, newRoot, id); err != nil {
			return fmt.Errorf("relocate project %s: %w", id, Describe(err))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE kv SET key = ? WHERE key = ?`, newRoot, oldRoot); err != nil {
			return fmt.Errorf("relocate project %s: %w", id, Describe(err))
		}
		return nil
	})
	return oldRoot, err
}

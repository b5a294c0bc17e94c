package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FolderRow is one folder of a project after its primary root (which is
// the project's Root). Position orders a project's folders; it may have
// gaps where a folder was removed.
type FolderRow struct {
	ProjectID string
	Position  int
	Path      string // canonical
	Name      string
	CreatedAt int64 // unix ms
}

// FolderSet is a project's folders as they are inside the writer's
// transaction: what a caller's check judges a change against.
type FolderSet struct {
	Root    string // the primary root
	Folders []FolderRow
}

// FolderTakenError says a path is already a folder of a project: its
// root (Root true) or one of its other folders.
type FolderTakenError struct {
	Path  string
	Other ProjectRow // id, name and root of the project holding it
	Root  bool
}

func (e *FolderTakenError) Error() string {
	if e.Root {
		return fmt.Sprintf("%s is already project %s (%s)", e.Path, e.Other.ID, e.Other.Name)
	}
	return fmt.Sprintf("%s is already a folder of project %s (%s)", e.Path, e.Other.ID, e.Other.Name)
}

const folderColumns = `project_id, position, path, name, created_at`

func scanFolders(rows *sql.Rows) ([]FolderRow, error) {
	defer rows.Close()
	var out []FolderRow
	for rows.Next() {
		var f FolderRow
		if err := rows.Scan(&f.ProjectID, &f.Position, &f.Path, &f.Name, &f.CreatedAt); err != nil {
			return nil, Describe(err)
		}
		out = append(out, f)
	}
	return out, Describe(rows.Err())
}

// AllFolders returns the folders after the primary root of every project
// that has any, by project id, in order: one query for a whole listing.
func (s *Store) AllFolders(ctx context.Context) (map[string][]FolderRow, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+folderColumns+` FROM project_folders ORDER BY project_id, position`)
	if err != nil {
		return nil, fmt.Errorf("list project folders: %w", Describe(err))
	}
	list, err := scanFolders(rows)
	if err != nil {
		return nil, fmt.Errorf("list project folders: %w", err)
	}
	out := map[string][]FolderRow{}
	for _, f := range list {
		out[f.ProjectID] = append(out[f.ProjectID], f)
	}
	return out, nil
}

// ProjectFolders returns a project's folders after its primary root, in
// order.
func (s *Store) ProjectFolders(ctx context.Context, projectID string) ([]FolderRow, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+folderColumns+` FROM project_folders WHERE project_id = ? ORDER BY position`, projectID)
	if err != nil {
		return nil, fmt.Errorf("list the folders of project %s: %w", projectID, Describe(err))
	}
	out, err := scanFolders(rows)
	if err != nil {
		return nil, fmt.Errorf("list the folders of project %s: %w", projectID, err)
	}
	return out, nil
}

// FolderOwner returns the id of the project that has path as a folder
// after its primary root; found is false when none has.
func (s *Store) FolderOwner(ctx context.Context, path string) (projectID string, found bool, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT project_id FROM project_folders WHERE path = ?`, path).Scan(&projectID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("find the project of folder %s: %w", path, Describe(err))
	}
	return projectID, true, nil
}

// takenBy returns a *FolderTakenError when path is a project's root or
// one of its folders, within tx.
func takenBy(ctx context.Context, tx *sql.Tx, path string) error {
	var other ProjectRow
	err := tx.QueryRowContext(ctx, `SELECT id, name, root FROM projects WHERE root = ?`, path).Scan(&other.ID, &other.Name, &other.Root)
	if err == nil {
		return &FolderTakenError{Path: path, Other: other, Root: true}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Describe(err)
	}
	err = tx.QueryRowContext(ctx, `SELECT p.id, p.name, p.root FROM project_folders f JOIN projects p ON p.id = f.project_id WHERE f.path = ?`, path).
		Scan(&other.ID, &other.Name, &other.Root)
	if err == nil {
		return &FolderTakenError{Path: path, Other: other}
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Describe(err)
	}
	return nil
}

// folderSet reads a project's folders within tx.
func folderSet(ctx context.Context, tx *sql.Tx, projectID string) (FolderSet, error) {
	var set FolderSet
	if err := tx.QueryRowContext(ctx, `SELECT root FROM projects WHERE id = ?`, projectID).Scan(&set.Root); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return set, ErrNotFound
		}
		return set, Describe(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+folderColumns+` FROM project_folders WHERE project_id = ? ORDER BY position`, projectID)
	if err != nil {
		return set, Describe(err)
	}
	set.Folders, err = scanFolders(rows)
	return set, err
}

// InsertFolder adds f.Path as the project's last folder, in one
// transaction that refuses a path already a folder of any project (a
// *FolderTakenError) and then lets check judge the project's folders as
// they are, so two processes adding folders at once cannot both pass a
// rule that only one of them may; check may also change f (its name). It
// returns the row as stored.
func (s *Store) InsertFolder(ctx context.Context, f FolderRow, check func(FolderSet, *FolderRow) error) (FolderRow, error) {
	err := s.Write(ctx, func(tx *sql.Tx) error {
		set, err := folderSet(ctx, tx, f.ProjectID)
		if err != nil {
			return err
		}
		if err := takenBy(ctx, tx, f.Path); err != nil {
			return err
		}
		if check != nil {
			if err := check(set, &f); err != nil {
				return err
			}
		}
		f.Position = 1
		if n := len(set.Folders); n > 0 {
			f.Position = set.Folders[n-1].Position + 1
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO project_folders (project_id, position, path, name, created_at) VALUES (?, ?, ?, ?, ?)`,
			f.ProjectID, f.Position, f.Path, f.Name, f.CreatedAt)
		return Describe(err)
	})
	if err != nil {
		return FolderRow{}, fmt.Errorf("add folder %s: %w", f.Path, err)
	}
	return f, nil
}

// DeleteFolder removes a folder (not the primary root, which is no row
// here) from a project with the notes of the sessions that worked in it.
// check, when set, runs first within the transaction with the sessions
// noted there that still exist, and may refuse.
func (s *Store) DeleteFolder(ctx context.Context, projectID, path string, check func(sessions []string) error) error {
	err := s.Write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM project_folders WHERE project_id = ? AND path = ?`, projectID, path).Scan(&n); err != nil {
			return Describe(err)
		}
		if n == 0 {
			return ErrNotFound
		}
		if check != nil {
			ids, err := folderSessions(ctx, tx, projectID, path)
			if err != nil {
				return err
			}
			if err := check(ids); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM folder_sessions WHERE project_id = ? AND path = ?`, projectID, path); err != nil {
			return Describe(err)
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM project_folders WHERE project_id = ? AND path = ?`, projectID, path)
		return Describe(err)
	})
	if err != nil {
		return fmt.Errorf("remove folder %s: %w", path, err)
	}
	return nil
}

// RelocateFolder gives a project's folder at oldPath the path newPath,
// keeping its name, place and the notes of its sessions. A newPath that
// is already a folder of any project is a *FolderTakenError; check judges
// the project's folders as they are (oldPath among them) within the same
// transaction.
func (s *Store) RelocateFolder(ctx context.Context, projectID, oldPath, newPath string, check func(FolderSet) error) error {
	err := s.Write(ctx, func(tx *sql.Tx) error {
		set, err := folderSet(ctx, tx, projectID)
		if err != nil {
			return err
		}
		found := false
		for _, f := range set.Folders {
			found = found || f.Path == oldPath
		}
		if !found {
			return ErrNotFound
		}
		if oldPath == newPath {
			return nil
		}
		if err := takenBy(ctx, tx, newPath); err != nil {
			return err
		}
		if check != nil {
			if err := check(set); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE project_folders SET path = ? WHERE project_id = ? AND path = ?`, newPath, projectID, oldPath); err != nil {
			return Describe(err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE folder_sessions SET path = ? WHERE project_id = ? AND path = ?`, newPath, projectID, oldPath)
		return Describe(err)
	})
	if err != nil {
		return fmt.Errorf("relocate folder %s: %w", oldPath, err)
	}
	return nil
}

// NoteFolderSession records that a session of a project worked in the
// folder at path; noting it again changes nothing.
func (s *Store) NoteFolderSession(ctx context.Context, projectID, path, sessionID string) error {
	now := s.now().UnixMilli()
	return s.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO folder_sessions (project_id, path, session_id, noted_at) VALUES (?, ?, ?, ?)`,
			projectID, path, sessionID, now)
		if err != nil {
			return fmt.Errorf("note session %s in folder %s: %w", sessionID, path, Describe(err))
		}
		return nil
	})
}

// FolderSessions returns the sessions noted as having worked in a
// project's folder that still exist (are in the session index), in the
// order they were first noted.
func (s *Store) FolderSessions(ctx context.Context, projectID, path string) ([]string, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("sessions of folder %s: %w", path, Describe(err))
	}
	defer tx.Rollback()
	ids, err := folderSessions(ctx, tx, projectID, path)
	if err != nil {
		return nil, fmt.Errorf("sessions of folder %s: %w", path, err)
	}
	return ids, nil
}

func folderSessions(ctx context.Context, tx *sql.Tx, projectID, path string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT n.session_id FROM folder_sessions n
		JOIN session_files f ON f.project_id = n.project_id AND f.id = n.session_id
		WHERE n.project_id = ? AND n.path = ? ORDER BY n.noted_at, n.session_id`, projectID, path)
	if err != nil {
		return nil, Describe(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, Describe(err)
		}
		out = append(out, id)
	}
	return out, Describe(rows.Err())
}

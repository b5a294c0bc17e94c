package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrDuplicate is returned when a new row's id is already in use; the caller
// picks another id and tries again.
var ErrDuplicate = errors.New("id already in use")

// SessionRow is one session as stored, with its number of entries.
type SessionRow struct {
	ID        string
	ProjectID string
	Title     string
	LeafID    string // "" = no leaf (empty session, or moved before the first entry)
	CreatedAt int64  // unix ms
	UpdatedAt int64  // unix ms: creation, last entry or last leaf move
	Entries   int
}

// EntryRow is one entry of a session's tree as stored. Seq orders the
// entries of a session by insertion; a parent always has a lower Seq than
// its children.
type EntryRow struct {
	ID        string
	ParentID  string // "" = root entry
	Seq       int64
	Type      string
	Payload   []byte // JSON text
	CreatedAt int64  // unix ms
}

const sessionColumns = `s.id, s.project_id, s.title, coalesce(s.leaf_id, ''), s.created_at, s.updated_at,
	(SELECT count(*) FROM entries e WHERE e.session_id = s.id)`

func scanSession(sc interface{ Scan(...any) error }) (SessionRow, error) {
	var r SessionRow
	err := sc.Scan(&r.ID, &r.ProjectID, &r.Title, &r.LeafID, &r.CreatedAt, &r.UpdatedAt, &r.Entries)
	return r, err
}

// CreateSession adds an empty session to a project and returns its row. It
// returns ErrNotFound when the project does not exist and ErrDuplicate when
// the id is taken.
func (s *Store) CreateSession(ctx context.Context, id, projectID, title string) (SessionRow, error) {
	now := s.now().UnixMilli()
	row := SessionRow{ID: id, ProjectID: projectID, Title: title, CreatedAt: now, UpdatedAt: now}
	err := s.Write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM projects WHERE id = ?) * 2 + (SELECT count(*) FROM sessions WHERE id = ?)`,
			projectID, id).Scan(&n); err != nil {
			return Describe(err)
		}
		switch {
		case n&2 == 0:
			return fmt.Errorf("project %s: %w", projectID, ErrNotFound)
		case n&1 == 1:
			return ErrDuplicate
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, project_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			id, projectID, title, now, now)
		return Describe(err)
	})
	if err != nil {
		return SessionRow{}, fmt.Errorf("add session: %w", err)
	}
	return row, nil
}

// Session returns one session's row, or ErrNotFound.
func (s *Store) Session(ctx context.Context, id string) (SessionRow, error) {
	r, err := scanSession(s.r.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return SessionRow{}, fmt.Errorf("read session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return SessionRow{}, fmt.Errorf("read session %s: %w", id, Describe(err))
	}
	return r, nil
}

// ProjectSessions lists a project's sessions, most recently updated first
// (ties: most recently created first). limit <= 0 means all of them.
func (s *Store) ProjectSessions(ctx context.Context, projectID string, limit int) ([]SessionRow, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.project_id = ?
		ORDER BY s.updated_at DESC, s.created_at DESC, s.rowid DESC LIMIT ?`, projectID, limit)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", Describe(err))
	}
	defer rows.Close()
	var out []SessionRow
	for rows.Next() {
		r, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", Describe(err))
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", Describe(err))
	}
	return out, nil
}

// AppendEntry stores e as the newest entry of a session, moves the
// session's leaf to it and bumps its updated_at, all in one transaction.
// e.ParentID must be "" or an entry of the same session. Seq and CreatedAt
// are assigned here and returned. It returns ErrNotFound when the session
// or the parent does not exist and ErrDuplicate when e.ID is taken.
func (s *Store) AppendEntry(ctx context.Context, sessionID string, e EntryRow) (EntryRow, error) {
	now := s.now().UnixMilli()
	err := s.Write(ctx, func(tx *sql.Tx) error {
		var sessions, dup, parent int
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM sessions WHERE id = ?1),
			(SELECT count(*) FROM entries WHERE session_id = ?1 AND id = ?2),
			(SELECT count(*) FROM entries WHERE session_id = ?1 AND id = ?3),
			(SELECT coalesce(max(seq), 0) + 1 FROM entries WHERE session_id = ?1)`,
			sessionID, e.ID, e.ParentID).Scan(&sessions, &dup, &parent, &seq)
		if err != nil {
			return Describe(err)
		}
		switch {
		case sessions == 0:
			return ErrNotFound
		case dup > 0:
			return ErrDuplicate
		case e.ParentID != "" && parent == 0:
			return fmt.Errorf("parent entry %s: %w", e.ParentID, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO entries (id, session_id, parent_id, seq, type, payload, created_at)
			VALUES (?, ?, NULLIF(?, ''), ?, ?, ?, ?)`,
			e.ID, sessionID, e.ParentID, seq, e.Type, string(e.Payload), now); err != nil {
			return Describe(err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET leaf_id = ?, updated_at = ? WHERE id = ?`, e.ID, now, sessionID); err != nil {
			return Describe(err)
		}
		e.Seq, e.CreatedAt = seq, now
		return nil
	})
	if err != nil {
		return EntryRow{}, fmt.Errorf("add entry to session %s: %w", sessionID, err)
	}
	return e, nil
}

// SetSessionLeaf moves a session's leaf to one of its entries, or to none
// (leafID ""), and bumps its updated_at. It returns ErrNotFound when the
// session or the entry does not exist.
func (s *Store) SetSessionLeaf(ctx context.Context, sessionID, leafID string) error {
	now := s.now().UnixMilli()
	return s.Write(ctx, func(tx *sql.Tx) error {
		if leafID != "" {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE session_id = ? AND id = ?`, sessionID, leafID).Scan(&n); err != nil {
				return fmt.Errorf("move session %s: %w", sessionID, Describe(err))
			}
			if n == 0 {
				return fmt.Errorf("move session %s to entry %s: %w", sessionID, leafID, ErrNotFound)
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET leaf_id = NULLIF(?, ''), updated_at = ? WHERE id = ?`, leafID, now, sessionID)
		if err != nil {
			return fmt.Errorf("move session %s: %w", sessionID, Describe(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("move session %s: %w", sessionID, ErrNotFound)
		}
		return nil
	})
}

// SetSessionTitle renames a session. It does not change updated_at: a
// rename is not activity. It returns ErrNotFound when there is no such
// session.
func (s *Store) SetSessionTitle(ctx context.Context, sessionID, title string) error {
	return s.Write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, sessionID)
		if err != nil {
			return fmt.Errorf("rename session %s: %w", sessionID, Describe(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("rename session %s: %w", sessionID, ErrNotFound)
		}
		return nil
	})
}

// SessionEntries returns all entries of a session ordered by Seq, in one
// query. Payloads share a few large blocks of memory; callers must treat
// them as read-only. An unknown session has no entries.
func (s *Store) SessionEntries(ctx context.Context, sessionID string) ([]EntryRow, error) {
	out, err := sessionEntries(ctx, s.r, sessionID, 0)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", sessionID, err)
	}
	return out, nil
}

// LoadSession returns a session's row and all its entries (as
// SessionEntries) read from one snapshot, so the leaf and the entries agree
// even while another process appends. It returns ErrNotFound when there is
// no such session.
func (s *Store) LoadSession(ctx context.Context, id string) (SessionRow, []EntryRow, error) {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return SessionRow{}, nil, fmt.Errorf("read session %s: %w", id, Describe(err))
	}
	defer tx.Rollback()
	row, err := scanSession(tx.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return SessionRow{}, nil, fmt.Errorf("read session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return SessionRow{}, nil, fmt.Errorf("read session %s: %w", id, Describe(err))
	}
	entries, err := sessionEntries(ctx, tx, id, row.Entries)
	if err != nil {
		return SessionRow{}, nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return row, entries, nil
}

// payloadChunk is the size of the blocks sessionEntries copies payloads
// into: one allocation per block instead of one per entry.
const payloadChunk = 256 << 10

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func sessionEntries(ctx context.Context, q queryer, sessionID string, sizeHint int) ([]EntryRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, coalesce(parent_id, ''), seq, type, payload, created_at
		FROM entries WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, Describe(err)
	}
	defer rows.Close()
	var (
		out      = make([]EntryRow, 0, sizeHint)
		raw, typ sql.RawBytes
		block    []byte
		types    = map[string]string{}
		// Scan targets outside the loop: taking a field's address for Scan
		// would move every row's EntryRow to the heap.
		id, parent   string
		seq, created int64
	)
	for rows.Next() {
		if err := rows.Scan(&id, &parent, &seq, &typ, &raw, &created); err != nil {
			return nil, Describe(err)
		}
		e := EntryRow{ID: id, ParentID: parent, Seq: seq, CreatedAt: created}
		// A handful of distinct types: one shared string per type.
		t, ok := types[string(typ)]
		if !ok {
			t = string(typ)
			types[t] = t
		}
		e.Type = t
		if len(raw) > payloadChunk/4 {
			e.Payload = append([]byte(nil), raw...)
		} else {
			if cap(block)-len(block) < len(raw) {
				block = make([]byte, 0, payloadChunk)
			}
			start := len(block)
			block = append(block, raw...)
			e.Payload = block[start:len(block):len(block)]
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, Describe(err)
	}
	return out, nil
}

// Package store keeps pi-tui's state in one SQLite file: the kv table of the
// design contract, the project registry and sessions. It knows SQL and rows,
// not the rules of the host; core packages give those rows their meaning.
package store

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ApplicationID marks a SQLite file as pi-tui's ("PiTu"). It is written in
// the same transaction as the first schema, before WAL is switched on, so
// the file header is a reliable signature that can be checked without
// letting SQLite touch a file that belongs to someone else.
const ApplicationID = 0x50695475

// FileName is the database's name inside the data dir.
const FileName = "pi-tui.db"

//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrConflict is returned by CompareAndSwap when the stored value is not the
// one the caller based its change on.
var ErrConflict = errors.New("value changed since it was read")

// ErrNotFound is returned when a row asked for by id does not exist.
var ErrNotFound = errors.New("not found")

// Options tune Open. The zero value is what the product uses.
type Options struct {
	// BusyTimeout is how long a writer waits for another one to finish
	// before giving up with a "database is busy" error. Zero means 5 s.
	BusyTimeout time.Duration
	// Now returns the current time; tests pin it. Nil means time.Now.
	Now func() time.Time
}

// Store is an open pi-tui database. All writes go through one connection
// (SQLite allows one writer at a time; one connection makes that explicit
// and keeps busy errors for other processes only); reads use a small pool.
type Store struct {
	path    string
	w       *sql.DB
	r       *sql.DB
	getKV   *sql.Stmt
	binding *sql.Stmt
	now     func() time.Time
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		var v int
		if _, err := fmt.Sscanf(e.Name(), "%04d_", &v); err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a 4-digit version", e.Name())
		}
		body, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Now returns the store's notion of the current time.
func (s *Store) Now() time.Time { return s.now() }

// Open opens the pi-tui database at path, creating it (and its directory)
// when missing and running any migrations it lacks. A file that is not a
// pi-tui database, or one written by a newer pi-tui, is refused and left as
// it was.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	st, err := open(ctx, path, opts)
	if err != nil {
		return nil, fullDisk(filepath.Dir(path), err)
	}
	return st, nil
}

func open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	path = abs
	if err := checkExisting(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: cannot create its folder: %w", path, describe(err))
	}
	if err := makePrivate(path); err != nil {
		return nil, err
	}
	ms, err := loadMigrations()
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	busy := opts.BusyTimeout.Milliseconds()
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	common := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)", busy)
	w, err := sql.Open("sqlite", uri+"?"+common+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	s := &Store{path: path, w: w, now: opts.Now}
	if err := s.migrateRetrying(ctx, ms, opts.BusyTimeout); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", uri+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	s.r = r
	// Statements run before every prompt are prepared once.
	if s.getKV, err = r.PrepareContext(ctx, `SELECT value, updated_at FROM kv WHERE namespace = ? AND key = ?`); err == nil {
		s.binding, err = r.PrepareContext(ctx, `SELECT root, trusted FROM projects WHERE id = ?`)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open store %s: %w", path, Describe(err))
	}
	return s, nil
}

// makePrivate keeps the database readable by its owner only: it holds
// project memory, project paths and session data. SQLite creates a new
// database file with mode 0644 (less the umask), and its -wal and -shm
// files with the database file's mode, so the file is created here first,
// with mode 0600 whatever the umask, and SQLite's files follow it. Files
// left readable by group or others (by an older pi-tui, or a copy) lose
// those bits. Failing to tighten an existing file is not an error: it may
// sit on a file system without Unix modes, or belong to someone else, and
// then SQLite's own open says what is wrong.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		err = f.Chmod(0o600)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("open store %s: %w", path, describe(err))
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("open store %s: cannot create it: %w", path, describe(err))
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(p, fi.Mode().Perm()&^0o077)
		}
	}
	return nil
}

// checkExisting refuses, without opening it through SQLite, anything at the
// database path that is not a pi-tui database: SQLite would happily add
// tables to another application's file or turn garbage into a hot journal.
func checkExisting(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("open store %s: the data dir %s is not a directory; pass another --data-dir", path, filepath.Dir(path))
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, describe(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("open store %s: this is a directory, not a pi-tui database; move it aside or pass another --data-dir", path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("open store %s: this is not a regular file, so not a pi-tui database; move it aside or pass another --data-dir", path)
	}
	if fi.Size() == 0 {
		return nil // an empty file is an empty database to SQLite too
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, describe(err))
	}
	defer f.Close()
	var hdr [100]byte
	n, err := io.ReadFull(f, hdr[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("open store %s: %w", path, describe(err))
	}
	if n < len(hdr) || !bytes.HasPrefix(hdr[:], []byte("SQLite format 3\x00")) {
		return fmt.Errorf("open store %s: this file is not a pi-tui database (not SQLite at all); it was left untouched: move it aside or pass another --data-dir", path)
	}
	if id := binary.BigEndian.Uint32(hdr[68:72]); id != ApplicationID {
		return fmt.Errorf("open store %s: this is another application's SQLite database, not pi-tui's; it was left untouched: move it aside or pass another --data-dir", path)
	}
	return nil
}

// migrateRetrying runs migrate, retrying while another process holds the
// database during its own first open: changing the journal mode of a new
// file reports SQLITE_BUSY at once instead of waiting on busy_timeout.
func (s *Store) migrateRetrying(ctx context.Context, ms []migration, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	wait := 5 * time.Millisecond
	for {
		err := s.migrate(ctx, ms)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("open store %s: %w", s.path, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, 200*time.Millisecond)
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

func (s *Store) migrate(ctx context.Context, ms []migration) error {
	var appID, version, objects int
	row := s.w.QueryRowContext(ctx, `SELECT (SELECT application_id FROM pragma_application_id),
		(SELECT user_version FROM pragma_user_version),
		(SELECT count(*) FROM sqlite_master)`)
	if err := row.Scan(&appID, &version, &objects); err != nil {
		return fmt.Errorf("open store %s: %w", s.path, Describe(err))
	}
	if appID != ApplicationID && !(appID == 0 && objects == 0) {
		return fmt.Errorf("open store %s: this is another application's SQLite database, not pi-tui's; move it aside or pass another --data-dir", s.path)
	}
	if version > len(ms) {
		return fmt.Errorf("open store %s: this database was written by a newer pi-tui (schema %d; this build knows up to %d); upgrade pi-tui to open it", s.path, version, len(ms))
	}
	if version < len(ms) {
		// Rollback journal for the migration itself, so that a brand-new
		// file has its application id on disk before WAL holds any change.
		if _, err := s.w.ExecContext(ctx, "PRAGMA journal_mode=DELETE"); err != nil && version == 0 {
			return fmt.Errorf("open store %s: %w", s.path, Describe(err))
		}
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("open store %s: %w", s.path, Describe(err))
		}
		defer tx.Rollback()
		// Another process may have migrated while this one waited for the
		// write lock: read the version again under the lock.
		if err := tx.QueryRowContext(ctx, "SELECT user_version FROM pragma_user_version").Scan(&version); err != nil {
			return fmt.Errorf("open store %s: %w", s.path, Describe(err))
		}
		if version > len(ms) {
			return fmt.Errorf("open store %s: this database was written by a newer pi-tui (schema %d; this build knows up to %d); upgrade pi-tui to open it", s.path, version, len(ms))
		}
		for _, m := range ms[version:] {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("open store %s: migration %s: %w", s.path, m.name, Describe(err))
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id=%d; PRAGMA user_version=%d", ApplicationID, len(ms))); err != nil {
			return fmt.Errorf("open store %s: %w", s.path, Describe(err))
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("open store %s: %w", s.path, Describe(err))
		}
	}
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return fmt.Errorf("open store %s: %w", s.path, Describe(err))
	}
	// A file with our signature but missing tables was damaged by hand or
	// by another tool; saying so beats "no such table" later.
	for _, table := range []string{"kv", "projects", "sessions", "entries"} {
		var n int
		if err := s.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&n); err != nil {
			return fmt.Errorf("open store %s: %w", s.path, Describe(err))
		}
		if n == 0 {
			return fmt.Errorf("open store %s: the database is damaged (its %s table is missing); move it aside to start afresh", s.path, table)
		}
	}
	return nil
}

// Stamp identifies the state of the database files on disk: the size and
// modification time of the file and of its write-ahead log. Any commit,
// by this process or another, changes it (a commit appends to the log; a
// checkpoint rewrites the file), so a program can notice another
// process's writes by comparing stamps without reading the database.
type Stamp struct {
	dbSize, dbMod, walSize, walMod int64
}

// Stamp returns the current stamp of the database files; a file that
// cannot be read counts as empty.
func (s *Store) Stamp() Stamp {
	var st Stamp
	if fi, err := os.Stat(s.path); err == nil {
		st.dbSize, st.dbMod = fi.Size(), fi.ModTime().UnixNano()
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		st.walSize, st.walMod = fi.Size(), fi.ModTime().UnixNano()
	}
	return st
}

// Close releases the database.
func (s *Store) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.getKV, s.binding} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// IntegrityCheck runs SQLite's integrity check and returns its verdict
// ("ok" when the file is sound).
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res)
	return res, Describe(err)
}

// Write runs fn in one immediate write transaction: it either commits whole
// or leaves nothing behind.
func (s *Store) Write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return Describe(err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return fullDisk(filepath.Dir(s.path), err)
	}
	return fullDisk(filepath.Dir(s.path), Describe(tx.Commit()))
}

// Describe turns SQLite's result codes into sentences a user can act on,
// keeping the original error wrapped for errors.Is/As.
func Describe(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return describe(err)
	}
	var msg string
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		msg = "the database is busy: another pi-tui process is writing to it; try again in a moment"
	case sqlite3.SQLITE_FULL:
		msg = "the disk is full: nothing was changed; free some space and try again"
	case sqlite3.SQLITE_READONLY:
		msg = "the database cannot be written (read-only file or folder): nothing was changed; check the data dir's permissions"
	case sqlite3.SQLITE_CANTOPEN:
		msg = "the database file cannot be opened: check that the data dir exists and is writable"
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		msg = "the database file is damaged or not a database: move it aside to start afresh"
	case sqlite3.SQLITE_IOERR:
		if se.Code() == sqlite3.SQLITE_IOERR_WRITE || se.Code() == sqlite3.SQLITE_IOERR_FSYNC {
			msg = "writing the database failed (disk full or failing?): nothing was changed"
		} else {
			msg = "reading or writing the database failed with an I/O error: nothing was changed"
		}
	case sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
		msg = "permission denied on the database: check the data dir's permissions"
	default:
		return err
	}
	return &describedError{msg: msg, err: err}
}

func describe(err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return &describedError{msg: "permission denied", err: err}
	case strings.Contains(err.Error(), "read-only file system"):
		return &describedError{msg: "the file system is read-only", err: err}
	case strings.Contains(err.Error(), "no space left on device"):
		return &describedError{msg: "the disk is full", err: err}
	}
	return err
}

type describedError struct {
	msg string
	err error
}

func (e *describedError) Error() string { return e.msg }
func (e *describedError) Unwrap() error { return e.err }

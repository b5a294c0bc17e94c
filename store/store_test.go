package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func TestOpenCreatesWALDatabaseWithSchema(t *testing.T) {
	st, path := openTemp(t)
	ctx := context.Background()
	var mode string
	if err := st.r.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	var fk int
	if err := st.w.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
	// The kv table is exactly the contract's.
	rows, err := st.r.QueryContext(ctx, "SELECT name, type, \"notnull\", pk FROM pragma_table_info('kv') ORDER BY cid")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var name, typ string
		var notnull, pk int
		if err := rows.Scan(&name, &typ, &notnull, &pk); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{name, typ, map[int]string{0: "null", 1: "notnull"}[notnull], string(rune('0' + pk))}, " "))
	}
	want := []string{"namespace TEXT notnull 1", "key TEXT notnull 2", "value TEXT notnull 0", "updated_at INTEGER notnull 0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("kv columns:\n got %q\nwant %q", got, want)
	}
	st.Close()
	// Reopening runs no migration twice and keeps data.
	st2, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer st2.Close()
	if res, err := st2.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Errorf("integrity_check = %q, %v", res, err)
	}
}

func TestOpenRefusesWhatIsNotAPiTuiDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, bytes.Repeat([]byte("not a database\n"), 500), 0o600); err != nil {
		t.Fatal(err)
	}

	foreign := filepath.Join(dir, "foreign.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	asDir := filepath.Join(dir, "dir.db")
	if err := os.Mkdir(asDir, 0o700); err != nil {
		t.Fatal(err)
	}

	for name, tc := range map[string]struct {
		path, want string
	}{
		"garbage":   {garbage, "not SQLite at all"},
		"foreign":   {foreign, "another application's SQLite database"},
		"directory": {asDir, "is a directory"},
	} {
		t.Run(name, func(t *testing.T) {
			before := snapshot(t, tc.path)
			_, err := Open(ctx, tc.path, Options{})
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %q should name the path and say %q", err, tc.want)
			}
			if after := snapshot(t, tc.path); after != before {
				t.Errorf("the file was changed by a refused Open")
			}
			if _, err := os.Stat(tc.path + "-wal"); err == nil {
				t.Errorf("a -wal file was created beside a refused database")
			}
		})
	}
}

func snapshot(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.IsDir() {
		ents, _ := os.ReadDir(path)
		return fi.Mode().String() + string(rune(len(ents)))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().String() + string(data)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	st, path := openTemp(t)
	if _, err := st.w.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, err := Open(context.Background(), path, Options{})
	if err == nil || !strings.Contains(err.Error(), "newer pi-tui") || !strings.Contains(err.Error(), "schema 99") {
		t.Fatalf("want a newer-version refusal, got %v", err)
	}
}

func TestConcurrentOpenOfNewDatabaseMigratesOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(context.Background(), path, Options{})
			if err == nil {
				st.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Errorf("concurrent open: %v", err)
		}
	}
}

func TestCompareAndSwapKV(t *testing.T) {
	st, path := openTemp(t)
	ctx := context.Background()
	if err := st.CompareAndSwapKV(ctx, "ns", "k", nil, "v1"); err != nil {
		t.Fatal(err)
	}
	if err := st.CompareAndSwapKV(ctx, "ns", "k", nil, "v2"); !errors.Is(err, ErrConflict) {
		t.Fatalf("insert over an existing row: %v, want ErrConflict", err)
	}
	stale := "v0"
	if err := st.CompareAndSwapKV(ctx, "ns", "k", &stale, "v2"); !errors.Is(err, ErrConflict) {
		t.Fatalf("stale base: %v, want ErrConflict", err)
	}
	cur := "v1"
	if err := st.CompareAndSwapKV(ctx, "ns", "k", &cur, "v2"); err != nil {
		t.Fatal(err)
	}
	kv, found, err := st.GetKV(ctx, "ns", "k")
	if err != nil || !found || kv.Value != "v2" {
		t.Fatalf("GetKV = %+v %v %v", kv, found, err)
	}

	// Two handles on one file, many writers from the same base: exactly one wins.
	other, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	base := "v2"
	var wg sync.WaitGroup
	results := make([]error, 8)
	for i := range results {
		h := st
		if i%2 == 1 {
			h = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = h.CompareAndSwapKV(ctx, "ns", "k", &base, "writer-"+string(rune('a'+i)))
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, ErrConflict):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d writers won, want exactly 1", wins)
	}
	if res, _ := st.IntegrityCheck(ctx); res != "ok" {
		t.Errorf("integrity_check = %q", res)
	}
}

func TestLockedDatabaseGivesASentenceAndKeepsState(t *testing.T) {
	ctx := context.Background()
	st, path := openTemp(t)
	if err := st.CompareAndSwapKV(ctx, "ns", "k", nil, "old"); err != nil {
		t.Fatal(err)
	}
	// Another process holds the write lock.
	locker, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	conn, err := locker.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	impatient, err := Open(ctx, path, Options{BusyTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer impatient.Close()
	old := "old"
	err = impatient.CompareAndSwapKV(ctx, "ns", "k", &old, "new")
	if err == nil || !strings.Contains(err.Error(), "busy") || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("want a busy sentence, got %v", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	kv, _, _ := st.GetKV(ctx, "ns", "k")
	if kv.Value != "old" {
		t.Errorf("value = %q after a refused write, want old", kv.Value)
	}
}

func TestProjectRowsAndCascade(t *testing.T) {
	st, _ := openTemp(t)
	ctx := context.Background()
	id, created, err := st.InsertProject(ctx, ProjectRow{ID: "p1", Name: "one", Root: "/r/one", CreatedAt: 1})
	if err != nil || !created || id != "p1" {
		t.Fatalf("insert = %q %v %v", id, created, err)
	}
	id, created, err = st.InsertProject(ctx, ProjectRow{ID: "p2", Name: "dup", Root: "/r/one", CreatedAt: 2})
	if err != nil || created || id != "p1" {
		t.Fatalf("insert of the same root = %q %v %v, want p1 false", id, created, err)
	}
	if err := st.InsertSession(ctx, "s1", "p1", "first"); err != nil {
		t.Fatal(err)
	}
	if err := st.CompareAndSwapKV(ctx, "mem", "/r/one", nil, "{}"); err != nil {
		t.Fatal(err)
	}
	rows, err := st.ProjectsWhere(ctx, "mem", "id", "p1")
	if err != nil || len(rows) != 1 || rows[0].Sessions != 1 || rows[0].Memory != "{}" {
		t.Fatalf("rows = %+v, %v", rows, err)
	}
	if err := st.DeleteProject(ctx, "p1", "mem"); err != nil {
		t.Fatal(err)
	}
	var n int
	st.r.QueryRow("SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM kv) + (SELECT count(*) FROM projects)").Scan(&n)
	if n != 0 {
		t.Errorf("%d rows left after removing the project", n)
	}
	if err := st.DeleteProject(ctx, "p1", "mem"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	if _, err := st.ProjectsWhere(ctx, "mem", "root; DROP TABLE kv", "x"); err == nil {
		t.Error("an unknown column was accepted")
	}
}

func TestOpenExplainsDamageAndBadDataDir(t *testing.T) {
	st, path := openTemp(t)
	if _, err := st.w.Exec("DROP TABLE sessions"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := Open(context.Background(), path, Options{}); err == nil || !strings.Contains(err.Error(), "damaged (its sessions table is missing)") {
		t.Errorf("dropped table: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o600)
	if _, err := Open(context.Background(), filepath.Join(file, FileName), Options{}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("data dir is a file: %v", err)
	}
}

// A write through another handle (another process) changes the stamp a
// reader compares; reading does not.
func TestStampChangesOnAnotherHandlesWrite(t *testing.T) {
	st, path := openTemp(t)
	ctx := context.Background()
	other, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	before := st.Stamp()
	if _, _, err := st.GetKV(ctx, "ns", "k"); err != nil {
		t.Fatal(err)
	}
	if st.Stamp() != before {
		t.Fatal("a read changed the stamp")
	}
	if err := other.CompareAndSwapKV(ctx, "ns", "k", nil, "v1"); err != nil {
		t.Fatal(err)
	}
	if st.Stamp() == before {
		t.Fatal("another handle's write left the stamp as it was")
	}
}

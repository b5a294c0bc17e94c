package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A database an older pi-tui wrote (schema 4, before folders) opens: the
// migration adds the folder tables and every project stays as it was, a
// project of one folder.
func TestSchema4DatabaseOpensWithItsProjects(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var old *Store
	{
		w, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		w.SetMaxOpenConns(1)
		old = &Store{path: path, w: w}
		if err := old.migrate(ctx, ms[:4]); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec(`INSERT INTO projects (id, name, root, created_at, group_name) VALUES ('p1', 'api', '/src/api', 1, 'work')`); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Exec(`INSERT INTO session_files (project_id, id) VALUES ('p1', 's1')`); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v int
	st.r.QueryRow("PRAGMA user_version").Scan(&v)
	if v != SchemaVersion() || v < 5 {
		t.Errorf("user_version = %d, want %d", v, SchemaVersion())
	}
	rows, err := st.Projects(ctx, "")
	if err != nil || len(rows) != 1 || rows[0].Root != "/src/api" || rows[0].Sessions != 1 || rows[0].Group != "work" {
		t.Fatalf("projects after the migration = %+v %v", rows, err)
	}
	all, err := st.AllFolders(ctx)
	if err != nil || len(all) != 0 {
		t.Errorf("folders after the migration = %v %v; want none (every project is its root)", all, err)
	}
	// And the new tables work on it.
	if _, err := st.InsertFolder(ctx, FolderRow{ProjectID: "p1", Path: "/src/web", Name: "web"}, nil); err != nil {
		t.Error(err)
	}
}

func TestFolderRowsKeepOnePathToOneProject(t *testing.T) {
	st, _ := openTemp(t)
	ctx := context.Background()
	for _, p := range []ProjectRow{{ID: "p1", Name: "api", Root: "/r/api"}, {ID: "p2", Name: "ops", Root: "/r/ops"}} {
		if _, _, err := st.InsertProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []FolderRow{{ProjectID: "p1", Path: "/r/web", Name: "web"}, {ProjectID: "p1", Path: "/r/docs", Name: "docs"}, {ProjectID: "p2", Path: "/r/infra", Name: "infra"}} {
		if _, err := st.InsertFolder(ctx, f, nil); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string]string{
		"/r/web":   "already a folder of project p1",
		"/r/infra": "already a folder of project p2",
		"/r/ops":   "is already project p2",
		"/r/api":   "is already project p1",
	} {
		_, err := st.InsertFolder(ctx, FolderRow{ProjectID: "p1", Path: path, Name: "x"}, nil)
		if !errors.As(err, new(*FolderTakenError)) || !strings.Contains(err.Error(), want) {
			t.Errorf("InsertFolder %s: %v, want %q", path, err, want)
		}
	}
	// A project's root cannot be another project's folder, by add or relocate.
	if _, _, err := st.InsertProject(ctx, ProjectRow{ID: "p3", Name: "web", Root: "/r/web"}); !errors.As(err, new(*FolderTakenError)) {
		t.Errorf("InsertProject on a folder: %v", err)
	}
	if _, err := st.RelocateProject(ctx, "p2", "/r/docs"); !errors.As(err, new(*FolderTakenError)) {
		t.Errorf("RelocateProject onto a folder: %v", err)
	}
	// A refusing check leaves nothing; positions follow on after a gap.
	boom := errors.New("no")
	if _, err := st.InsertFolder(ctx, FolderRow{ProjectID: "p1", Path: "/r/new"}, func(FolderSet, *FolderRow) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("refusing check: %v", err)
	}
	if err := st.DeleteFolder(ctx, "p1", "/r/web", nil); err != nil {
		t.Fatal(err)
	}
	f, err := st.InsertFolder(ctx, FolderRow{ProjectID: "p1", Path: "/r/new", Name: "new"}, func(set FolderSet, f *FolderRow) error {
		if set.Root != "/r/api" || len(set.Folders) != 1 {
			t.Errorf("set = %+v", set)
		}
		return nil
	})
	if err != nil || f.Position != 3 {
		t.Errorf("inserted %+v %v; want position 3", f, err)
	}
	list, _ := st.ProjectFolders(ctx, "p1")
	if len(list) != 2 || list[0].Path != "/r/docs" || list[1].Path != "/r/new" {
		t.Errorf("folders = %+v", list)
	}
	if id, ok, _ := st.FolderOwner(ctx, "/r/infra"); !ok || id != "p2" {
		t.Errorf("FolderOwner = %q %v", id, ok)
	}
	// Removing a project removes its folders and notes (cascade).
	st.IndexSession(ctx, "p2", "s1")
	st.NoteFolderSession(ctx, "p2", "/r/infra", "s1")
	if err := st.DeleteProject(ctx, "p2"); err != nil {
		t.Fatal(err)
	}
	var n int
	st.r.QueryRow("SELECT (SELECT count(*) FROM project_folders WHERE project_id = 'p2') + (SELECT count(*) FROM folder_sessions)").Scan(&n)
	if n != 0 {
		t.Errorf("%d folder rows left after removing the project", n)
	}
	if err := st.DeleteFolder(ctx, "p1", "/r/api", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting the root as a folder: %v", err)
	}
}

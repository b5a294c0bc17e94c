package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSessionEntriesSchemaAndQueries(t *testing.T) {
	ctx := context.Background()
	var ms int64
	st, err := Open(ctx, filepath.Join(t.TempDir(), FileName), Options{Now: func() time.Time { ms++; return time.UnixMilli(ms) }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var cols []string
	rows, err := st.r.QueryContext(ctx, `SELECT name || ' ' || type || ' ' || "notnull" || ' ' || pk FROM pragma_table_info('entries') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols = append(cols, c)
	}
	rows.Close()
	want := "id TEXT 1 2|session_id TEXT 1 1|parent_id TEXT 0 0|seq INTEGER 1 0|type TEXT 1 0|payload TEXT 1 0|created_at INTEGER 1 0"
	if strings.Join(cols, "|") != want {
		t.Errorf("entries columns:\n got %q\nwant %q", strings.Join(cols, "|"), want)
	}

	if _, _, err := st.InsertProject(ctx, ProjectRow{ID: "p1", Name: "one", Root: "/r/one", CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateSession(ctx, "s1", "nope", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("session of an unknown project: %v", err)
	}
	row, err := st.CreateSession(ctx, "s1", "p1", "t")
	if err != nil || row.LeafID != "" || row.CreatedAt == 0 {
		t.Fatalf("create = %+v %v", row, err)
	}
	if _, err := st.CreateSession(ctx, "s1", "p1", ""); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate session id: %v", err)
	}
	// The old entry point still works and makes an empty session.
	if err := st.InsertSession(ctx, "s2", "p1", "old"); err != nil {
		t.Fatal(err)
	}

	e1, err := st.AppendEntry(ctx, "s1", EntryRow{ID: "a", Type: "user", Payload: []byte(`"x"`)})
	if err != nil || e1.Seq != 1 {
		t.Fatalf("append = %+v %v", e1, err)
	}
	e2, err := st.AppendEntry(ctx, "s1", EntryRow{ID: "b", ParentID: "a", Type: "assistant", Payload: []byte(`"y"`)})
	if err != nil || e2.Seq != 2 {
		t.Fatalf("append = %+v %v", e2, err)
	}
	for _, bad := range []struct {
		session string
		e       EntryRow
		want    error
	}{
		{"nope", EntryRow{ID: "c", Type: "user", Payload: []byte(`1`)}, ErrNotFound},
		{"s1", EntryRow{ID: "a", Type: "user", Payload: []byte(`1`)}, ErrDuplicate},
		{"s1", EntryRow{ID: "c", ParentID: "zz", Type: "user", Payload: []byte(`1`)}, ErrNotFound},
		{"s2", EntryRow{ID: "c", ParentID: "a", Type: "user", Payload: []byte(`1`)}, ErrNotFound}, // parent of another session
	} {
		if _, err := st.AppendEntry(ctx, bad.session, bad.e); !errors.Is(err, bad.want) {
			t.Errorf("append %+v to %s: %v, want %v", bad.e, bad.session, err, bad.want)
		}
	}
	// The same entry id may be used by another session.
	if _, err := st.AppendEntry(ctx, "s2", EntryRow{ID: "a", Type: "user", Payload: []byte(`1`)}); err != nil {
		t.Errorf("id a in another session: %v", err)
	}

	got, err := st.Session(ctx, "s1")
	if err != nil || got.LeafID != "b" || got.Entries != 2 || got.Title != "t" {
		t.Errorf("session = %+v %v", got, err)
	}
	if err := st.SetSessionLeaf(ctx, "s1", "zz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("leaf to an unknown entry: %v", err)
	}
	if err := st.SetSessionLeaf(ctx, "nope", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("leaf of an unknown session: %v", err)
	}
	if err := st.SetSessionLeaf(ctx, "s1", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.SetSessionTitle(ctx, "s1", "renamed"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetSessionTitle(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename of an unknown session: %v", err)
	}
	row, entries, err := st.LoadSession(ctx, "s1")
	if err != nil || row.LeafID != "" || row.Title != "renamed" || len(entries) != 2 {
		t.Fatalf("load = %+v %d %v", row, len(entries), err)
	}
	if e := entries[1]; e.ID != "b" || e.ParentID != "a" || e.Type != "assistant" || string(e.Payload) != `"y"` || e.Seq != 2 || e.CreatedAt == 0 {
		t.Errorf("entry = %+v", e)
	}
	if entries[0].ParentID != "" {
		t.Errorf("root parent = %q", entries[0].ParentID)
	}
	if _, _, err := st.LoadSession(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("load of an unknown session: %v", err)
	}

	// s1's leaf move is the latest activity; its rename did not count.
	list, err := st.ProjectSessions(ctx, "p1", 0)
	if err != nil || len(list) != 2 || list[0].ID != "s1" || list[0].Entries != 2 || list[1].Entries != 1 {
		t.Errorf("list = %+v %v", list, err)
	}
	if one, _ := st.ProjectSessions(ctx, "p1", 1); len(one) != 1 {
		t.Errorf("limit 1 gave %d rows", len(one))
	}

	if err := st.DeleteProject(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	var n int
	st.r.QueryRow("SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM entries)").Scan(&n)
	if n != 0 {
		t.Errorf("%d session or entry rows left after removing the project", n)
	}
}

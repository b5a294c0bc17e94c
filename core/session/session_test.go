package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/store"
)

// clock returns a Now that advances one millisecond per call, so that
// updated_at orders are deterministic without sleeping.
func clock() func() time.Time {
	var ms atomic.Int64
	ms.Store(1_700_000_000_000)
	return func() time.Time { return time.UnixMilli(ms.Add(1)) }
}

func openStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, store.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// setup returns a store on a temp file with project p1, and the file's path.
func setup(t testing.TB) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), store.FileName)
	st := openStore(t, path)
	if _, _, err := st.InsertProject(context.Background(), store.ProjectRow{ID: "p1", Name: "one", Root: "/r/one", CreatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	return st, path
}

func ids(es []Entry) string {
	var b []string
	for _, e := range es {
		b = append(b, e.ID)
	}
	return strings.Join(b, " ")
}

// seqIDs makes a Manager whose ids are predictable: e1, e2, ...
func seqIDs(m *Manager) {
	var n atomic.Int64
	m.newID = func(int) string { return fmt.Sprintf("e%d", n.Add(1)) }
}

func mustAppend(t testing.TB, s *Session, typ string, payload any) Entry {
	t.Helper()
	e, err := s.Append(context.Background(), typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestAppendMovesLeafAndBuildsPath(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	m := NewManager(st)
	s, err := m.Create(ctx, "p1", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != "" || len(s.Path()) != 0 || len(s.Context()) != 0 || s.Title() != "hello" || s.ProjectID() != "p1" {
		t.Fatalf("new session: leaf %q path %v title %q", s.Leaf(), s.Path(), s.Title())
	}
	u := mustAppend(t, s, TypeUser, map[string]string{"text": "hi"})
	if len(u.ID) != 8 || u.ParentID != "" || u.CreatedAt == 0 || string(u.Payload) != `{"text":"hi"}` {
		t.Errorf("first entry = %+v", u)
	}
	a := mustAppend(t, s, TypeAssistant, json.RawMessage(`{"text": "hello"}`))
	if a.ParentID != u.ID || s.Leaf() != a.ID {
		t.Errorf("second entry parent %q leaf %q, want %q %q", a.ParentID, s.Leaf(), u.ID, a.ID)
	}
	if string(a.Payload) != `{"text": "hello"}` {
		t.Errorf("raw payload changed: %s", a.Payload)
	}
	if got, want := ids(s.Path()), u.ID+" "+a.ID; got != want {
		t.Errorf("path = %s, want %s", got, want)
	}
	if e, ok := s.Get(u.ID); !ok || e.ID != u.ID {
		t.Errorf("Get = %+v %v", e, ok)
	}
	if _, ok := s.Get("nope"); ok {
		t.Error("Get of an unknown id found something")
	}
	for _, bad := range []struct {
		typ     string
		payload any
	}{
		{"bogus", 1},
		{TypeUser, json.RawMessage(`{"x":`)},
		{TypeUser, make(chan int)},
		{TypeCompaction, "not a compaction"},
	} {
		if _, err := s.Append(ctx, bad.typ, bad.payload); err == nil {
			t.Errorf("Append(%q, %v) succeeded", bad.typ, bad.payload)
		}
	}
	if len(s.Entries()) != 2 || s.Leaf() != a.ID {
		t.Errorf("refused appends changed the session: %d entries, leaf %q", len(s.Entries()), s.Leaf())
	}
}

func TestBranchThenAppendStartsASecondBranch(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	m := NewManager(st)
	seqIDs(m)
	s, _ := m.Create(ctx, "p1", "")
	for _, typ := range []string{TypeUser, TypeAssistant, TypeUser, TypeAssistant} {
		mustAppend(t, s, typ, "x")
	}
	// Session id took e1; entries are e2..e5.
	if got := ids(s.Path()); got != "e2 e3 e4 e5" {
		t.Fatalf("path = %s", got)
	}
	if err := s.Branch(ctx, "e3"); err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != "e3" || ids(s.Path()) != "e2 e3" {
		t.Fatalf("after branch: leaf %s path %s", s.Leaf(), ids(s.Path()))
	}
	b := mustAppend(t, s, TypeUser, "other")
	if b.ParentID != "e3" || ids(s.Path()) != "e2 e3 e6" {
		t.Errorf("new branch: parent %s path %s", b.ParentID, ids(s.Path()))
	}
	if got := ids(s.Entries()); got != "e2 e3 e4 e5 e6" {
		t.Errorf("entries = %s; the old branch must stay", got)
	}
	if err := s.Branch(ctx, "e5"); err != nil || ids(s.Path()) != "e2 e3 e4 e5" {
		t.Errorf("back to the first branch: %v, path %s", err, ids(s.Path()))
	}
	if err := s.Branch(ctx, ""); err != nil || s.Leaf() != "" || len(s.Path()) != 0 {
		t.Errorf("branch before the first entry: %v, leaf %q", err, s.Leaf())
	}
	r := mustAppend(t, s, TypeUser, "second root")
	if r.ParentID != "" || ids(s.Path()) != r.ID {
		t.Errorf("second root: %+v path %s", r, ids(s.Path()))
	}
	if err := s.Branch(ctx, "nope"); !errors.Is(err, store.ErrNotFound) || s.Leaf() != r.ID {
		t.Errorf("branch to an unknown entry: %v, leaf %s", err, s.Leaf())
	}
	// The tree and leaf survive a reopen.
	o, err := m.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if ids(o.Entries()) != ids(s.Entries()) || o.Leaf() != r.ID {
		t.Errorf("reopened: entries %s leaf %s", ids(o.Entries()), o.Leaf())
	}
}

// build appends entries given as "type:label" ("u", "a", "t", "x" custom,
// "m" model change, "c>label" compaction keeping from the entry labelled
// label) and returns label → id.
func build(t *testing.T, s *Session, spec string) map[string]string {
	t.Helper()
	label := map[string]string{}
	for _, item := range strings.Fields(spec) {
		kind, name, _ := strings.Cut(item, ":")
		var e Entry
		switch kind[0] {
		case 'u':
			e = mustAppend(t, s, TypeUser, name)
		case 'a':
			e = mustAppend(t, s, TypeAssistant, name)
		case 't':
			e = mustAppend(t, s, TypeToolResult, name)
		case 'x':
			e = mustAppend(t, s, TypeCustom, name)
		case 'm':
			e = mustAppend(t, s, TypeModelChange, name)
		case 'c':
			keep := label[kind[2:]]
			if kind[2:] == "missing" {
				keep = "zzzzzzzz"
			}
			e = mustAppend(t, s, TypeCompaction, Compaction{Summary: "sum " + name, FirstKeptEntryID: keep, TokensBefore: 1000})
		}
		label[name] = e.ID
	}
	return label
}

func labels(s *Session, es []Entry) string {
	var out []string
	for _, e := range es {
		var v any
		json.Unmarshal(e.Payload, &v)
		if c, ok := v.(map[string]any); ok {
			out = append(out, strings.TrimPrefix(c["summary"].(string), "sum "))
		} else {
			out = append(out, v.(string))
		}
	}
	return strings.Join(out, " ")
}

func TestContext(t *testing.T) {
	cases := []struct {
		name, spec, want string
	}{
		{"no compaction", "u:u1 a:a1 x:x1 t:t1 m:m1 u:u2", "u1 a1 t1 m1 u2"},
		{"one compaction", "u:u1 a:a1 u:u2 a:a2 x:x1 u:u3 c>u2:C1 x:x2 u:u4 a:a4", "C1 u2 a2 u3 u4 a4"},
		{"two compactions, only the latest counts", "u:u1 a:a1 c>a1:C1 u:u2 a:a2 x:x1 u:u3 a:a3 c>a2:C2 u:u4 a:a4 x:x2", "C2 a2 u3 a3 u4 a4"},
		{"kept range spans an earlier compaction", "u:u1 a:a1 c>a1:C1 u:u2 c>a1:C2 u:u3", "C2 a1 u2 u3"},
		{"first kept not on the path", "u:u1 a:a1 c>missing:C1 u:u2", "C1 u2"},
		{"earlier compaction's first kept is ignored", "u:u1 c>u1:C0 a:a1 c>a1:C1 u:u2", "C1 a1 u2"},
		{"compaction is the leaf", "u:u1 a:a1 c>a1:C1", "C1 a1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := setup(t)
			s, err := NewManager(st).Create(context.Background(), "p1", "")
			if err != nil {
				t.Fatal(err)
			}
			build(t, s, tc.spec)
			if got := labels(s, s.Context()); got != tc.want {
				t.Errorf("context = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestContextWithFirstKeptAfterTheCompaction(t *testing.T) {
	st, _ := setup(t)
	m := NewManager(st)
	seqIDs(m)
	s, _ := m.Create(context.Background(), "p1", "")                                        // e1
	build(t, s, "u:u1 a:a1")                                                                // e2 e3
	mustAppend(t, s, TypeCompaction, Compaction{Summary: "sum C1", FirstKeptEntryID: "e5"}) // e4
	build(t, s, "u:u2 a:a2")                                                                // e5 e6
	if got := labels(s, s.Context()); got != "C1 u2 a2" {
		t.Errorf("context = %q, want C1 u2 a2", got)
	}
}

func TestContextFollowsTheBranch(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	s, _ := NewManager(st).Create(ctx, "p1", "")
	l := build(t, s, "u:u1 a:a1 u:u2 a:a2 c>u2:C1 u:u3")
	if got := labels(s, s.Context()); got != "C1 u2 a2 u3" {
		t.Fatalf("context = %q", got)
	}
	// A branch that never saw the compaction sees the whole path again.
	if err := s.Branch(ctx, l["a2"]); err != nil {
		t.Fatal(err)
	}
	build(t, s, "x:x1 u:u9")
	if got := labels(s, s.Context()); got != "u1 a1 u2 a2 u9" {
		t.Errorf("context on the other branch = %q", got)
	}
}

func TestReopenGivesTheSameTree(t *testing.T) {
	st, path := setup(t)
	ctx := context.Background()
	s, _ := NewManager(st).Create(ctx, "p1", "first")
	l := build(t, s, "u:u1 a:a1 x:x1 u:u2 c>a1:C1 u:u3")
	if err := s.Branch(ctx, l["u2"]); err != nil {
		t.Fatal(err)
	}
	build(t, s, "a:a9")
	if err := s.SetTitle(ctx, "renamed"); err != nil {
		t.Fatal(err)
	}

	st2 := openStore(t, path)
	o, err := NewManager(st2).Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.Entries(), o.Entries()
	if len(a) != len(b) {
		t.Fatalf("%d entries after reopen, want %d", len(b), len(a))
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].ParentID != b[i].ParentID || a[i].Type != b[i].Type ||
			string(a[i].Payload) != string(b[i].Payload) || a[i].CreatedAt != b[i].CreatedAt {
			t.Errorf("entry %d: %+v, want %+v", i, b[i], a[i])
		}
	}
	if o.Leaf() != s.Leaf() || o.Title() != "renamed" || o.ProjectID() != "p1" || o.Repaired() != "" {
		t.Errorf("reopened: leaf %s title %q project %s repaired %q", o.Leaf(), o.Title(), o.ProjectID(), o.Repaired())
	}
	if labels(o, o.Context()) != labels(s, s.Context()) {
		t.Errorf("context %q, want %q", labels(o, o.Context()), labels(s, s.Context()))
	}
	if _, err := NewManager(st2).Open(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("open of an unknown session: %v", err)
	}
}

func TestListAndLatest(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	m := NewManager(st)
	if _, found, err := m.Latest(ctx, "p1"); found || err != nil {
		t.Fatalf("latest of a project without sessions: %v %v", found, err)
	}
	a, _ := m.Create(ctx, "p1", "a")
	b, _ := m.Create(ctx, "p1", "b")
	c, _ := m.Create(ctx, "p1", "c")
	mustAppend(t, b, TypeUser, "1")
	mustAppend(t, b, TypeAssistant, "2")
	mustAppend(t, a, TypeUser, "1")                      // a is now the most recently updated
	if err := c.SetTitle(ctx, "c renamed"); err != nil { // renaming is not activity
		t.Fatal(err)
	}
	list, err := m.List(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		got = append(got, fmt.Sprintf("%s:%d", s.Title, s.Entries))
	}
	if strings.Join(got, " ") != "a:1 b:2 c renamed:0" {
		t.Errorf("list = %v", got)
	}
	if list[0].ID != a.ID() || list[0].ProjectID != "p1" || list[0].UpdatedAt <= list[0].CreatedAt {
		t.Errorf("first = %+v", list[0])
	}
	latest, found, err := m.Latest(ctx, "p1")
	if err != nil || !found || latest != list[0] {
		t.Errorf("latest = %+v %v %v", latest, found, err)
	}
	if _, err := m.Create(ctx, "nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("create in an unknown project: %v", err)
	}
}

func TestRemovingTheProjectRemovesSessionsAndEntries(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	m := NewManager(st)
	s, _ := m.Create(ctx, "p1", "x")
	build(t, s, "u:u1 a:a1 x:x1")
	if err := st.DeleteProject(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if list, err := m.List(ctx, "p1"); err != nil || len(list) != 0 {
		t.Errorf("list after removal = %v %v", list, err)
	}
	if _, err := m.Open(ctx, s.ID()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("open after removal: %v", err)
	}
	if rows, err := st.SessionEntries(ctx, s.ID()); err != nil || len(rows) != 0 {
		t.Errorf("%d entries left after removal (%v)", len(rows), err)
	}
	if _, err := s.Append(ctx, TypeUser, "late"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("append to a removed session: %v", err)
	}
}

func TestTwoHandlesAppendingToOneSession(t *testing.T) {
	st1, path := setup(t)
	st2 := openStore(t, path)
	ctx := context.Background()
	m1, m2 := NewManager(st1), NewManager(st2)
	s1, _ := m1.Create(ctx, "p1", "shared")
	root := mustAppend(t, s1, TypeUser, "root")
	s2, err := m2.Open(ctx, s1.ID())
	if err != nil {
		t.Fatal(err)
	}
	// Both handles draw the same id first: the second insert finds it
	// taken in the store and retries with another.
	clash := func(m *Manager, s *Session) {
		var n atomic.Int64
		f := func(int) string {
			if n.Add(1) == 1 {
				return "samesame"
			}
			return randomHex(4)
		}
		m.newID, s.newID = f, f
	}
	clash(m1, s1)
	clash(m2, s2)
	var wg sync.WaitGroup
	res := make([]Entry, 2)
	errs := make([]error, 2)
	for i, s := range []*Session{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = s.Append(ctx, TypeAssistant, i)
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if res[0].ID == res[1].ID || res[0].ParentID != root.ID || res[1].ParentID != root.ID {
		t.Errorf("entries %+v", res)
	}
	// Each handle knows only its own append; the store has both.
	if len(s1.Entries()) != 2 || len(s2.Entries()) != 2 {
		t.Errorf("in memory: %d and %d entries", len(s1.Entries()), len(s2.Entries()))
	}
	o, err := NewManager(st1).Open(ctx, s1.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Entries()) != 3 {
		t.Errorf("stored: %s", ids(o.Entries()))
	}
	if l := o.Leaf(); l != res[0].ID && l != res[1].ID {
		t.Errorf("leaf %s is neither append", l)
	}
}

func TestConcurrentAppendsOnOneSessionChain(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	s, _ := NewManager(st).Create(ctx, "p1", "")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Append(ctx, TypeUser, i); err != nil {
				t.Error(err)
			}
			s.Context()
		}()
	}
	wg.Wait()
	if len(s.Path()) != 20 {
		t.Errorf("path has %d entries, want 20 in one chain", len(s.Path()))
	}
}

func TestFailedWritesLeaveTheSessionAsItWas(t *testing.T) {
	st, _ := setup(t)
	ctx := context.Background()
	s, _ := NewManager(st).Create(ctx, "p1", "title")
	l := build(t, s, "u:u1 a:a1")
	st.Close()
	if _, err := s.Append(ctx, TypeUser, "lost"); err == nil {
		t.Fatal("append to a closed store succeeded")
	}
	if err := s.Branch(ctx, l["u1"]); err == nil {
		t.Fatal("branch on a closed store succeeded")
	}
	if err := s.SetTitle(ctx, "new"); err == nil {
		t.Fatal("rename on a closed store succeeded")
	}
	if s.Leaf() != l["a1"] || len(s.Entries()) != 2 || s.Title() != "title" || ids(s.Path()) != l["u1"]+" "+l["a1"] {
		t.Errorf("after failed writes: leaf %s entries %d title %q", s.Leaf(), len(s.Entries()), s.Title())
	}
}

// tamper runs SQL on the database file behind pi-tui's back.
func tamper(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func TestOpenOfADamagedSession(t *testing.T) {
	st, path := setup(t)
	ctx := context.Background()
	m := NewManager(st)
	seqIDs(m)
	s, _ := m.Create(ctx, "p1", "") // e1
	build(t, s, "u:u1 a:a1 u:u2")   // e2 e3 e4

	tamper(t, path, `UPDATE sessions SET leaf_id = 'gone'`)
	o, err := m.Open(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if o.Leaf() != "e4" || !strings.Contains(o.Repaired(), "gone") {
		t.Errorf("missing leaf: leaf %s, repaired %q", o.Leaf(), o.Repaired())
	}
	mustAppend(t, o, TypeAssistant, "a2") // the repair is stored with the next write
	if o.Repaired() != "" {
		t.Errorf("repaired = %q after a write", o.Repaired())
	}

	// A cycle e2 → e3 → e2 and a missing parent are refused, not followed.
	for _, q := range []string{
		`UPDATE entries SET parent_id = 'e3' WHERE id = 'e2'`,
		`UPDATE entries SET parent_id = 'e4' WHERE id = 'e4'`,
		`UPDATE entries SET parent_id = 'nope' WHERE id = 'e3'`,
	} {
		st2, path2 := setup(t)
		m2 := NewManager(st2)
		seqIDs(m2)
		s2, _ := m2.Create(ctx, "p1", "")
		build(t, s2, "u:u1 a:a1 u:u2")
		tamper(t, path2, q)
		if _, err := m2.Open(ctx, s2.ID()); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s: open = %v, want ErrDamaged", q, err)
		}
	}
}

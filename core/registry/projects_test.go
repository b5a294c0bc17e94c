package registry

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/store"
)

func newRegistry(t testing.TB) (*Registry, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewRegistry(st, t.TempDir()), st
}

func TestAddCanonicalisesAndDeduplicates(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	base := t.TempDir()
	real := filepath.Join(base, "src", "api")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "api-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	canon, _ := filepath.EvalSymlinks(real)

	p, created, err := reg.Add(ctx, link, "", false)
	if err != nil || !created {
		t.Fatalf("add = %+v %v %v", p, created, err)
	}
	if p.Root != canon || p.Name != "api" || p.Trusted {
		t.Errorf("project = %+v, want root %s, name api, untrusted", p, canon)
	}
	// Same folder by its real path, with a trailing slash and a detour.
	for _, again := range []string{real, real + "/", filepath.Join(real, "..", "api")} {
		q, created, err := reg.Add(ctx, again, "other", true)
		if err != nil || created || q.ID != p.ID || q.Name != "api" {
			t.Errorf("re-add %s = %+v %v %v; want the existing project unchanged", again, q, created, err)
		}
	}
	// Relative path from the working directory.
	t.Chdir(filepath.Join(base, "src"))
	q, created, err := reg.Add(ctx, "api", "", false)
	if err != nil || created || q.ID != p.ID {
		t.Errorf("relative re-add = %+v %v %v", q, created, err)
	}
	list, _ := reg.List(ctx, true)
	if len(list) != 1 {
		t.Errorf("%d projects after adding one folder four ways", len(list))
	}
}

func TestAddRefusesWhatIsNotADirectory(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	for path, want := range map[string]string{
		file:                          "is not a directory",
		filepath.Join(dir, "missing"): "does not exist",
		dangling:                      "does not exist",
		"":                            "no path",
		"bad\x00path":                 "not a valid path",
	} {
		_, _, err := reg.Add(ctx, path, "", false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add(%q) = %v, want %q", path, err, want)
		}
	}
}

func TestFlagsListingAndMissing(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	base := t.TempDir()
	var ids []string
	for _, name := range []string{"zeta", "alpha", "mid"} {
		dir := filepath.Join(base, name)
		os.Mkdir(dir, 0o755)
		p, _, err := reg.Add(ctx, dir, "", name == "alpha")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.SetPinned(ctx, ids[0], true))   // zeta pinned
	must(reg.SetArchived(ctx, ids[2], true)) // mid archived
	must(reg.MarkOpened(ctx, ids[1]))
	must(reg.Rename(ctx, ids[1], "  Alpha   One "))

	names := func(all bool) string {
		list, err := reg.List(ctx, all)
		must(err)
		var s []string
		for _, p := range list {
			s = append(s, p.Name)
		}
		return strings.Join(s, ",")
	}
	if got := names(false); got != "zeta,Alpha One" {
		t.Errorf("default list = %s", got)
	}
	if got := names(true); got != "zeta,Alpha One,mid" {
		t.Errorf("--all list = %s", got)
	}
	p, _ := reg.Get(ctx, ids[1])
	if p.LastOpenedAt == nil || !p.Trusted {
		t.Errorf("alpha = %+v", p)
	}
	must(reg.SetArchived(ctx, ids[2], false))
	if got := names(false); got != "zeta,Alpha One,mid" {
		t.Errorf("after restore = %s", got)
	}
	if err := reg.Rename(ctx, ids[1], " \t"); err == nil {
		t.Error("an empty name was accepted")
	}

	// A vanished folder stays listed, marked missing, and can still be named by path.
	os.RemoveAll(filepath.Join(base, "mid"))
	list, _ := reg.List(ctx, false)
	var found bool
	for _, p := range list {
		if p.Name == "mid" {
			found = true
			if !p.Missing {
				t.Error("vanished folder not marked missing")
			}
		} else if p.Missing {
			t.Errorf("%s marked missing", p.Name)
		}
	}
	if !found {
		t.Fatal("vanished project dropped from the list")
	}
	if q, err := reg.Find(ctx, filepath.Join(base, "mid")); err != nil || q.ID != ids[2] {
		t.Errorf("find vanished by path = %+v, %v", q, err)
	}
}

// legacyName gives a project a name behind the registry's back, as a
// database written before names were unique may hold.
func legacyName(t *testing.T, st *store.Store, id, name string) {
	t.Helper()
	db, err := sql.Open("sqlite", st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE projects SET name = ? WHERE id = ?`, name, id); err != nil {
		t.Fatal(err)
	}
}

func TestNamesAreUniqueIgnoringCase(t *testing.T) {
	ctx := context.Background()
	reg, _ := newRegistry(t)
	base := t.TempDir()
	a := filepath.Join(base, "one", "api")
	b := filepath.Join(base, "two", "api")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	pa, _, err := reg.Add(ctx, a, "", false)
	if err != nil {
		t.Fatal(err)
	}
	// The second folder's default name is taken: refused, naming the other.
	_, _, err = reg.Add(ctx, b, "", false)
	var taken *store.NameTakenError
	if !errors.As(err, &taken) || taken.Other.ID != pa.ID || !strings.Contains(err.Error(), pa.ID) || !strings.Contains(err.Error(), a) {
		t.Fatalf("duplicate add: %v", err)
	}
	if list, _ := reg.List(ctx, true); len(list) != 1 {
		t.Fatalf("the refused add left %d projects", len(list))
	}
	_, _, err = reg.Add(ctx, b, "API", false)
	if !errors.As(err, &taken) {
		t.Fatalf("a name differing in case was accepted: %v", err)
	}
	pb, _, err := reg.Add(ctx, b, "api-two", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Rename(ctx, pb.ID, "Api"); !errors.As(err, &taken) || !strings.Contains(err.Error(), pa.ID) {
		t.Errorf("duplicate rename: %v", err)
	}
	// Unicode case, not just ASCII.
	reg.Rename(ctx, pa.ID, "Über")
	if err := reg.Rename(ctx, pb.ID, "üBER"); !errors.As(err, &taken) {
		t.Errorf("Unicode case rename: %v", err)
	}
	// A project may change the case of its own name.
	if err := reg.Rename(ctx, pa.ID, "über"); err != nil {
		t.Errorf("changing the case of its own name: %v", err)
	}
}

func TestFindByIDNamePathAndAmbiguity(t *testing.T) {
	ctx := context.Background()
	reg, st := newRegistry(t)
	base := t.TempDir()
	a := filepath.Join(base, "one", "api")
	b := filepath.Join(base, "two", "api")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	pa, _, _ := reg.Add(ctx, a, "", false)
	pb, _, _ := reg.Add(ctx, b, "api-two", false)
	legacyName(t, st, pb.ID, "API") // a database from before names were unique

	if p, err := reg.Find(ctx, pa.ID); err != nil || p.ID != pa.ID {
		t.Errorf("by id: %+v %v", p, err)
	}
	if p, err := reg.Find(ctx, b); err != nil || p.ID != pb.ID {
		t.Errorf("by path: %+v %v", p, err)
	}
	_, err := reg.Find(ctx, "api")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Matches) != 2 || !strings.Contains(err.Error(), pa.ID) || !strings.Contains(err.Error(), pb.ID) {
		t.Errorf("ambiguous name: %v", err)
	}
	list, _ := reg.List(ctx, true)
	for _, p := range list {
		if !p.DuplicateName {
			t.Errorf("%s (%s) is not marked as a duplicate name", p.Name, p.ID)
		}
	}
	reg.Rename(ctx, pb.ID, "api-two")
	if p, err := reg.Find(ctx, "API"); err != nil || p.ID != pa.ID {
		t.Errorf("unique name in another case: %+v %v", p, err)
	}
	list, _ = reg.List(ctx, true)
	for _, p := range list {
		if p.DuplicateName {
			t.Errorf("%s is still marked as a duplicate", p.Name)
		}
	}
	var nf *NotFoundError
	if _, err := reg.Find(ctx, "nothing-like-it"); !errors.As(err, &nf) {
		t.Errorf("unknown: %v", err)
	}
}

func TestRemoveDeletesRowSessionsAndMemoryButNotTheFolder(t *testing.T) {
	ctx := context.Background()
	reg, st := newRegistry(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("keep me"), 0o644)
	p, _, _ := reg.Add(ctx, dir, "", false)
	if err := st.InsertSession(ctx, "s1", p.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewService(st)
	base, _ := mem.Load(ctx, p.Root)
	if _, err := mem.Save(ctx, base, []memory.Entry{{Content: "note"}}); err != nil {
		t.Fatal(err)
	}
	p, _ = reg.Get(ctx, p.ID)
	if p.Sessions != 1 || p.MemoryEntries != 1 || p.MemoryBytes != 4 {
		t.Errorf("before remove: %+v", p)
	}
	if err := reg.Remove(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Get(ctx, p.ID); err == nil {
		t.Error("project still there")
	}
	if m, _ := mem.Load(ctx, p.Root); m.Content != "" {
		t.Error("memory survived removal")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "AGENTS.md")); err != nil || string(data) != "keep me" {
		t.Error("the folder on disk was touched")
	}
	// Adding it again starts clean.
	q, created, _ := reg.Add(ctx, dir, "", false)
	if !created || q.Sessions != 0 || q.MemoryEntries != 0 {
		t.Errorf("re-added = %+v", q)
	}
}

// Removing a project removes its approval rules: a different repository
// cloned later into the same folder is not pre-approved.
func TestRemoveForgetsApprovalRules(t *testing.T) {
	reg, st := newRegistry(t)
	dir := t.TempDir()
	ctx := context.Background()
	root := filepath.Join(dir, "app")
	os.MkdirAll(root, 0o755)
	p, _, err := reg.Add(ctx, root, "app", true)
	if err != nil {
		t.Fatal(err)
	}
	rules := approvals.New(st)
	if err := rules.Add(ctx, p.Root, approvals.Rule{Tool: approvals.ToolBash, Pattern: "npm test *"}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Remove(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	p2, _, _ := reg.Add(ctx, root, "other", true)
	if list, _ := rules.Rules(ctx, p2.Root); len(list) != 0 {
		t.Errorf("the removed project's rules apply to the new one: %v", list)
	}
}

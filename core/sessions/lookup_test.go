package sessions

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/store"
)

// The ids of three sessions begun within the same minute, in three
// projects: UUIDv7 ids whose first 8 digits are the same.
const (
	prefix8 = "01a2454e"
	idOne   = prefix8 + "-1111-7000-8000-000000000001"
	idTwo   = prefix8 + "-2222-7000-8000-000000000002"
	idThree = prefix8 + "-3333-7000-8000-000000000003"
)

// threeProjects is a store with projects one, two and three, and a
// session in each whose id starts with prefix8 (named as given), written
// as pi writes them. It returns a Manager factory: each Manager is a
// fresh process's, knowing nothing of the files.
func threeProjects(t *testing.T, titles ...string) (fresh func() *Manager, roots [3]string) {
	t.Helper()
	e := setup(t, t.TempDir())
	ctx := context.Background()
	roots[0] = e.root
	for i, p := range []store.ProjectRow{{ID: "p2", Name: "two"}, {ID: "p3", Name: "three"}} {
		p.Root, p.CreatedAt = t.TempDir(), 1
		if _, _, err := e.st.InsertProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		roots[i+1] = p.Root
	}
	for i, id := range []string{idOne, idTwo, idThree} {
		writeSession(t, pisession.SessionsDir(e.agent, roots[i]), roots[i], id, titles[i])
	}
	return func() *Manager { return NewManager(e.st, Config{AgentDir: e.agent}) }, roots
}

// writeSession writes a session file with the given id and name.
func writeSession(t testing.TB, dir, root, id, title string) string {
	t.Helper()
	ctx := context.Background()
	ps, err := pisession.Create(ctx, dir, pisession.NewSession{ID: id, Cwd: root}, pisession.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if title != "" {
		if _, err := ps.SetName(ctx, title); err != nil {
			t.Fatal(err)
		}
	}
	return ps.File()
}

// A prefix three projects' sessions share names none of them: a fresh
// Manager (and one that has listed only one project, as the old lookup
// looked only at what it had listed) refuses it, naming each session by
// id, project and title, with the title's control characters escaped.
// The project scopes it; a full id is exact.
func TestLookupRefusesAPrefixSeveralProjectsShare(t *testing.T) {
	ctx := context.Background()
	fresh, _ := threeProjects(t, "fix login", "tidy \x1b[2Jup", "")

	listedOne := fresh()
	if _, err := listedOne.List(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*Manager{"fresh": fresh(), "after listing one": listedOne} {
		s, err := m.Open(ctx, prefix8)
		var amb *AmbiguousError
		if !errors.As(err, &amb) {
			if s != nil {
				t.Fatalf("%s: Open(%s) opened %s of project %s; want it refused", name, prefix8, s.ID(), s.ProjectID())
			}
			t.Fatalf("%s: Open(%s) = %v; want an AmbiguousError", name, prefix8, err)
		}
		if errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: an ambiguous id reads as not found: %v", name, err)
		}
		var got []string
		for _, c := range amb.Candidates {
			got = append(got, c.ID+" "+c.Project+" "+c.Title)
		}
		want := []string{idOne + " one fix login", idTwo + " two tidy \x1b[2Jup", idThree + " three "}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: candidates %q, want %q", name, got, want)
		}
		msg := err.Error()
		for _, w := range []string{`"` + prefix8 + `" names 3 sessions`, `"` + idOne + `" (project "one", "fix login")`, `(project "two", "tidy \x1b[2Jup")`, `"` + idThree + `" (project "three")`, "nothing was done"} {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q lacks %q", name, msg, w)
			}
		}
		if strings.ContainsRune(msg, 0x1b) || strings.Contains(msg, "\n") {
			t.Errorf("%s: the error is not one safe line: %q", name, msg)
		}
	}

	for _, c := range []struct{ project, id, want string }{
		{"p3", prefix8, idThree},
		{"p2", prefix8[:4], idTwo},
		{"", idTwo, idTwo},
		{"", idThree[:20], idThree},
	} {
		s, err := fresh().OpenIn(ctx, c.project, c.id)
		if err != nil {
			t.Errorf("OpenIn(%q, %s): %v", c.project, c.id, err)
			continue
		}
		if s.ID() != c.want || "p"+map[string]string{idOne: "1", idTwo: "2", idThree: "3"}[c.want] != s.ProjectID() {
			t.Errorf("OpenIn(%q, %s) = %s of %s, want %s", c.project, c.id, s.ID(), s.ProjectID(), c.want)
		}
		s.Close()
	}
	if _, err := fresh().OpenIn(ctx, "p1", idTwo); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `project "one" has no session `+idTwo) {
		t.Errorf("another project's session by its full id, scoped: %v", err)
	}
}

// A full id wins over the ids it is the start of, in another project
// too; the same full id in two projects' folders is refused as well.
func TestLookupFullIDWins(t *testing.T) {
	ctx := context.Background()
	fresh, roots := threeProjects(t, "", "", "")
	m := fresh()
	agent := m.cfg.AgentDir
	writeSession(t, pisession.SessionsDir(agent, roots[0]), roots[0], "plain", "")
	writeSession(t, pisession.SessionsDir(agent, roots[1]), roots[1], "plain-longer", "")
	mt, err := fresh().Lookup(ctx, "plain", "")
	if err != nil || mt.ID != "plain" || mt.ProjectID != "p1" || mt.Project != "one" || filepath.Base(filepath.Dir(mt.Path)) != filepath.Base(pisession.SessionsDir(agent, roots[0])) {
		t.Errorf("Lookup(plain) = %+v, %v", mt, err)
	}

	// A copy of project two's session in project three's folder.
	writeSession(t, pisession.SessionsDir(agent, roots[2]), roots[2], idTwo, "")
	var amb *AmbiguousError
	if _, err := fresh().Lookup(ctx, idTwo, ""); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("one full id in two projects: %v", err)
	}
	if mt, err := fresh().Lookup(ctx, idTwo, "p3"); err != nil || mt.ProjectID != "p3" {
		t.Errorf("one full id in two projects, scoped: %+v, %v", mt, err)
	}
}

// Many sessions sharing a prefix: the error lists the first ten and
// counts the rest, reading only those ten files for their titles.
func TestLookupListsAtMostTenCandidates(t *testing.T) {
	ctx := context.Background()
	e := setup(t, t.TempDir())
	dir := pisession.SessionsDir(e.agent, e.root)
	for i := range 25 {
		writeSession(t, dir, e.root, prefix8+"-0000-7000-8000-"+strings.Repeat("0", 10)+string(rune('a'+i/10))+string(rune('0'+i%10)), "")
	}
	_, err := e.m.Lookup(ctx, prefix8, "")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 10 || amb.More != 15 || !strings.Contains(err.Error(), "names 25 sessions") || !strings.Contains(err.Error(), "and 15 more") {
		t.Errorf("25 matches: %v", err)
	}
}

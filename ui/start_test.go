package ui

import (
	"context"
	"testing"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// runAt starts the program where `pi-tui [-c] PATH` would.
func (f *fixture) runAt(start Start) *session {
	m := f.model()
	m.opts.Start = start
	return newSession(f.t, m, 100, 30)
}

func (f *fixture) project(name string) *Start {
	f.t.Helper()
	p, err := f.host.Projects.Find(context.Background(), name)
	if err != nil {
		f.t.Fatal(err)
	}
	return &Start{Project: &p}
}

// pi-tui inside a project opens on its sessions.
func TestStartOnProjectShowsItsSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	f.add("src/shed", "shed", true)
	s := f.runAt(*f.project("shop"))
	s.waitFor("Sessions · shop", "No sessions yet")
	s.keys("esc", "1") // back on the Projects tab, the project is selected
	s.waitFor("› shop")
}

// Starting in a project's folder (pi-tui, pi-tui -c, pi-tui PATH) opens
// it as o on its row does: it is marked opened, for the recent sort.
func TestStartOnProjectMarksItOpened(t *testing.T) {
	t.Parallel()
	for _, cont := range []bool{false, true} {
		f := newFixture(t)
		f.add("src/shop", "shop", true)
		st := f.project("shop")
		st.Continue = cont
		s := f.runAt(*st)
		s.keys("1")
		s.waitFor("› shop", "opened just now")
		s.final()
		p, err := f.host.Projects.Find(context.Background(), "shop")
		if err != nil || p.LastOpenedAt == nil {
			t.Errorf("continue=%v: not marked opened: %+v %v", cont, p, err)
		}
	}
}

// pi-tui -c reopens the latest session; a project without one shows its
// empty list.
func TestStartContinueOpensLatestSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	st := f.project("shop")
	st.Continue = true
	s := f.runAt(*st)
	s.waitFor("No sessions yet")
	s.final()

	ctx := context.Background()
	// Which session is the latest is core/sessions' (Manager.Latest);
	// here, -c opens it rather than the list.
	sm := f.host.Sessions
	sess, err := sm.Create(ctx, st.Project.ID, "fix the checkout")
	if err != nil {
		t.Fatal(err)
	}
	msg := map[string]any{"message": provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "fix the checkout"}}}}
	if _, err := sess.Append(ctx, sessions.TypeUser, msg); err != nil {
		t.Fatal(err)
	}
	s2 := f.runAt(*st)
	s2.waitFor("Session · shop  fix the checkout") // the header of the open chat
}

// pi-tui PATH on a folder no project holds offers the add dialog with the
// folder filled in; trust stays unchecked until the user says so. Once
// added, the program goes on to the project's sessions, as for a
// registered PATH, and it counts as opened.
func TestStartOnUnknownFolderOffersToAdd(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.dir("src/new-thing")
	s := f.runAt(Start{AddPath: dir})
	// The folder is filled in (ctrl+s adds it as it is); its path wraps
	// where the temp dir's name decides, so it is checked in the registry.
	s.waitFor("Add a project", "[ ] no")
	s.keys("ctrl+s")
	s.waitFor("added new-thing", "Sessions · new-thing", "No sessions yet")
	// The opened mark is written off the UI goroutine, after the sessions
	// show; the Projects tab draws it only once it is stored.
	s.keys("1")
	s.waitFor("› new-thing", "opened just now")
	s.final()
	list, err := f.host.Projects.List(context.Background(), false)
	if err != nil || len(list) != 1 || list[0].Root != dir || list[0].Trusted || list[0].LastOpenedAt == nil {
		t.Fatalf("after add: %+v %v", list, err)
	}
}

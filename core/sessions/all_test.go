package sessions

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/store"
)

// ListAll lists every project's sessions, each naming its project, with
// the first message and name the palette searches, newest first; a file
// that cannot be opened is left out. It holds in pi's folder per project
// and in one shared session folder alike.
func TestListAllListsEveryProjectsSessions(t *testing.T) {
	for _, shared := range []bool{false, true} {
		e := setup(t, t.TempDir())
		other := t.TempDir()
		ctx := context.Background()
		if _, _, err := e.st.InsertProject(ctx, store.ProjectRow{ID: "p2", Name: "two", Root: other, CreatedAt: 1}); err != nil {
			t.Fatal(err)
		}
		cfg := Config{AgentDir: e.agent}
		if shared {
			cfg.SessionDir = t.TempDir()
		}
		m := NewManager(e.st, cfg)
		made := map[string]string{} // session id → project
		for _, c := range []struct{ project, title, first string }{
			{"p1", "", "fix the login form"},
			{"p2", "release notes", "write the notes for 1.2"},
			{"p1", "", "second in one"},
		} {
			s, err := m.Create(ctx, c.project, c.title)
			if err != nil {
				t.Fatal(err)
			}
			mustAppend(t, s, TypeUser, msg(provider.RoleUser, text(c.first)))
			made[s.ID()] = c.project
			s.Close()
		}
		dir := pisession.SessionsDir(e.agent, e.root)
		if shared {
			dir = cfg.SessionDir
		}
		os.WriteFile(filepath.Join(dir, "2026-01-01T00-00-00-000Z_broken.jsonl"), []byte("not a session\n"), 0o600)

		all, err := m.ListAll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != 3 {
			t.Fatalf("shared=%v: listed %d sessions: %+v", shared, len(all), all)
		}
		byFirst := map[string]Summary{}
		for i, s := range all {
			if made[s.ID] != s.ProjectID {
				t.Errorf("shared=%v: %s listed under %s, made in %s", shared, s.ID, s.ProjectID, made[s.ID])
			}
			if i > 0 && s.UpdatedAt > all[i-1].UpdatedAt {
				t.Errorf("shared=%v: not newest first: %+v", shared, all)
			}
			byFirst[s.FirstMessage] = s
		}
		if s := byFirst["write the notes for 1.2"]; s.Title != "release notes" {
			t.Errorf("shared=%v: the named session: %+v", shared, s)
		}
		// Listed sessions open by id, as the palette opens them.
		for id := range made {
			o, err := m.Open(ctx, id)
			if err != nil {
				t.Fatalf("shared=%v: open %s: %v", shared, id, err)
			}
			o.Close()
		}
	}
}

package projects_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/store/storetest"
	"github.com/pi-tui/pi-tui/ui"
)

// screen is a running pi-tui whose waits read its output as prose (see
// screentest.Prose).
type screen struct {
	*screentest.Screen
	tm *teatest.TestModel
}

func start(t *testing.T, pl paths.Places) *screen { return startEnv(t, pl, nil) }

// startEnv starts the UI with env as its program's environment.
func startEnv(t *testing.T, pl paths.Places, env map[string]string) *screen {
	t.Helper()
	m, done, err := ui.NewKit(context.Background(), ui.KitOptions{DataDir: pl.DataDir, AgentDir: pl.AgentDir, Home: pl.Home,
		Env: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	sc := screentest.Start(t, m, 120, 40, screentest.Prose)
	return &screen{Screen: sc, tm: sc.TM}
}

// waitFor waits until the output since the last wait shows all of want.
func (s *screen) waitFor(want ...string) {
	s.T.Helper()
	s.WaitFor(want...)
}

func (s *screen) keys(ks ...string) { s.Keys(ks...) }

func places(t *testing.T) paths.Places {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pl := paths.Places{Home: home, AgentDir: filepath.Join(home, ".pi", "agent"), DataDir: filepath.Join(home, "data")}
	storetest.Seed(t, pl.DataDir)
	return pl
}

func openRegistry(t *testing.T, pl paths.Places) (*registry.Registry, func()) {
	h := openHost(t, pl)
	return h.Projects, func() { h.Close() }
}

// openHost opens the host over pl's data as another pi-tui would; the
// caller closes it.
func openHost(t *testing.T, pl paths.Places) *host.Host {
	t.Helper()
	h, err := host.Open(context.Background(), pl, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func project(t *testing.T, pl paths.Places, name string) registry.Project {
	t.Helper()
	reg, done := openRegistry(t, pl)
	defer done()
	p, err := reg.Find(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Row keys act without enter, but never while the filter has the keys.
func TestRowKeysActDirectlyButNotWhileFiltering(t *testing.T) {
	t.Parallel()
	pl := places(t)
	reg, done := openRegistry(t, pl)
	for _, n := range []string{"alpha", "beta"} {
		os.MkdirAll(filepath.Join(pl.Home, n), 0o755)
		if _, _, err := reg.Add(context.Background(), filepath.Join(pl.Home, n), "", false); err != nil {
			t.Fatal(err)
		}
	}
	done()
	s := start(t, pl)
	s.waitFor("alpha", "beta", "enter menu · o open")
	s.keys("/", "p", "t") // letters for the filter: nothing is pinned or trusted
	s.waitFor("/pt")
	s.keys("esc")
	if p := project(t, pl, "alpha"); p.Pinned || p.Trusted {
		t.Fatalf("keys typed into the filter acted: %+v", p)
	}
	s.keys("p") // the cursor is on the first row (recent order: beta)
	s.waitFor("Pinned (1)")
	s.keys("t")
	s.waitFor("trusted")
	s.keys("r")
	s.waitFor("Rename")
	s.keys("esc", "L")
	s.waitFor("relocate is for a project whose folder moved")
}

// g moves a project to a group named on the spot; z folds the group, and
// the folding is remembered by the next start; a filter looks inside it.
func TestGroupsFoldAndAreRemembered(t *testing.T) {
	t.Parallel()
	pl := places(t)
	reg, done := openRegistry(t, pl)
	for _, n := range []string{"api", "web", "notes"} {
		os.MkdirAll(filepath.Join(pl.Home, n), 0o755)
		reg.Add(context.Background(), filepath.Join(pl.Home, n), "", false)
	}
	api, _ := reg.Find(context.Background(), "api")
	reg.SetGroup(context.Background(), api.ID, "Work")
	done()
	s := start(t, pl)
	s.waitFor("▾ Work (1)", "Projects (2)")
	s.keys("G", "g") // the last project into the existing group, picked by typing part of it
	s.waitFor("Move")
	s.keys("w", "o")
	s.waitFor(`> wo`)
	s.keys("enter")
	s.waitFor("▾ Work (2)", "Projects (1)")
	s.keys("home", "z")
	s.waitFor("▸ Work (2)")
	s.tm.Quit()

	s = start(t, pl)
	s.waitFor("▸ Work (2)", "Projects (1)")
	s.keys("/", "a", "p", "i")
	s.waitFor("▾ Work (1)", "~/api")
	if p := project(t, pl, "notes"); p.Group != "" {
		t.Errorf("notes was moved too: %q", p.Group)
	}
}

// A project whose folder moved is relocated from its row: L, the new
// path, enter. Memory follows it and the row is no longer missing.
func TestRelocateFromTheRow(t *testing.T) {
	t.Parallel()
	pl := places(t)
	reg, done := openRegistry(t, pl)
	old := filepath.Join(pl.Home, "src", "api")
	os.MkdirAll(old, 0o755)
	p, _, _ := reg.Add(context.Background(), old, "", true)
	done()
	os.MkdirAll(filepath.Join(pl.Home, "work"), 0o755)
	if err := os.Rename(old, filepath.Join(pl.Home, "work", "api")); err != nil {
		t.Fatal(err)
	}
	s := start(t, pl)
	s.waitFor("api", "folder missing")
	s.keys("o")
	s.waitFor("Open session: ~/src/api is gone; L relocates the project")
	s.keys("L")
	s.waitFor("Relocate api", "Where is it now?")
	s.tm.Type("~/work/a")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	s.waitFor("~/work/api/")
	s.keys("enter")
	s.waitFor("relocated api to ~/work/api")
	if q := project(t, pl, p.ID); q.Root != filepath.Join(pl.Home, "work", "api") || q.Missing || !q.Trusted {
		t.Errorf("after relocating: %+v", q)
	}
}

// The row menu's w item says whether the agent may write memory now; o
// or w on a section heading says why nothing happened.
func TestMenuShowsAgentWritesAndHeadingKeysSayWhy(t *testing.T) {
	t.Parallel()
	pl := places(t)
	h := openHost(t, pl)
	ctx := context.Background()
	for _, n := range []string{"api", "web"} {
		os.MkdirAll(filepath.Join(pl.Home, n), 0o755)
		p, _, err := h.Projects.Add(ctx, filepath.Join(pl.Home, n), "", true)
		if err != nil {
			t.Fatal(err)
		}
		h.Projects.SetGroup(ctx, p.ID, "Work")
		if n == "web" {
			if err := h.Memory.SetAgentWrites(ctx, p.ID, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	h.Close()
	s := start(t, pl)
	s.keys("s") // by name: api, then web
	s.waitFor("▾ Work (2)", "sorted by name")
	s.keys("home", "j", "enter") // from the heading to api
	s.waitFor("api", "Agent may write memory: now off")
	s.keys("esc", "j", "enter")
	s.waitFor("web", "Agent may write memory: now on")
	s.keys("esc", "home", "o")
	s.waitFor("o acts on a project, and the cursor is on a section heading")
	s.keys("w")
	s.waitFor("w acts on a project")
}

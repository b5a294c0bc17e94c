package projects_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
)

// The order s chooses is kept: a program started again on the same data
// dir shows the list in it from its first frame of projects.
func TestSortOrderSurvivesARestart(t *testing.T) {
	t.Parallel()
	pl := places(t)
	h := openHost(t, pl)
	ctx := context.Background()
	for _, n := range []string{"alpha", "zeta"} {
		os.MkdirAll(filepath.Join(pl.Home, n), 0o755)
		p, _, err := h.Projects.Add(ctx, filepath.Join(pl.Home, n), "", false)
		if err != nil {
			t.Fatal(err)
		}
		if n == "zeta" { // opened last: first by recent use, last by name
			if err := h.Projects.MarkOpened(ctx, p.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	h.Close()
	run := func() *screentest.Screen {
		m, done, err := ui.NewKit(ctx, ui.KitOptions{DataDir: pl.DataDir, AgentDir: pl.AgentDir, Home: pl.Home})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { done() })
		return screentest.Start(t, m, 80, 24, screentest.Plain)
	}
	// first returns the frame once it lists both projects.
	first := func(s *screentest.Screen) string {
		return s.WaitFrame(func(f string) bool { return strings.Contains(f, "~/alpha") && strings.Contains(f, "~/zeta") })
	}
	before := func(frame, a, b string) bool { return strings.Index(frame, a) < strings.Index(frame, b) }

	s := run()
	if f := first(s); !strings.Contains(f, "sort: recent") || !before(f, "~/zeta", "~/alpha") {
		t.Fatalf("the first start is not by recent use:\n%s", f)
	}
	s.Keys("s")
	s.WaitFor("sorted by name") // said once it is kept
	s.Final()

	s = run()
	if f := first(s); !strings.Contains(f, "sort: name") || !before(f, "~/alpha", "~/zeta") {
		t.Errorf("after a restart the list is not by name:\n%s", f)
	}
	s.Keys("s")
	s.WaitFor("sorted by recent")
	s.Final()

	s = run()
	if f := first(s); !strings.Contains(f, "sort: recent") || !before(f, "~/zeta", "~/alpha") {
		t.Errorf("after sorting by recent use again and a restart:\n%s", f)
	}
	s.Final()
}

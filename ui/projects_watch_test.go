package ui

import (
	"context"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/ui/projects"
)

// A project added by another process (the CLI: its own store handle, its
// own event broker) shows in a running UI without a key pressed: the
// Projects tab notices the database files changed. The tab looks every
// few milliseconds here instead of every 2 s, so the test waits for the
// look, not for the clock.
func TestProjectAddedByAnotherProcessShows(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	m := f.model()
	m.projects.SetPolls(projects.Polls{Stamp: 20 * time.Millisecond})
	s := newSession(t, m, 100, 30)
	s.waitFor("› shop")
	cli, err := host.Open(context.Background(), f.host.Places, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, _, err := cli.Projects.Add(context.Background(), f.dir("src/shed"), "shed", false); err != nil {
		t.Fatal(err)
	}
	s.waitFor("shed", "~/src/shed")
}

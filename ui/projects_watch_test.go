package ui

import (
	"context"
	"testing"

	"github.com/pi-tui/pi-tui/core/host"
)

// A project added by another process (the CLI: its own store handle, its
// own event broker) shows in a running UI without a key pressed: the
// Projects tab notices the database files changed.
func TestProjectAddedByAnotherProcessShows(t *testing.T) {
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	s := f.run(100, 30)
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

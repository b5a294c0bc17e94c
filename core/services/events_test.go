package services

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/paths"
)

// Adding a project, renaming it and saving its memory each tell the
// subscribers to the Projects topic, so lists reload without polling.
func TestStoreWritesPublishProjectsChanged(t *testing.T) {
	dir := t.TempDir()
	h, err := Open(context.Background(), paths.Places{Home: dir, AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	sub := h.Events.Subscribe(t.Context(), events.Projects)
	ctx := context.Background()
	p, _, err := h.Projects.Add(ctx, dir, "proj", false)
	if err != nil {
		t.Fatal(err)
	}
	if batch, _ := sub.Next(); len(batch) != 1 || batch[0] != (events.ProjectsChanged{ProjectID: p.ID}) {
		t.Fatalf("after add: %v", batch)
	}
	if err := h.Projects.Rename(ctx, p.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if batch, _ := sub.Next(); len(batch) != 1 || batch[0] != (events.ProjectsChanged{ProjectID: p.ID}) {
		t.Fatalf("after rename: %v", batch)
	}
	base, err := h.Memory.Load(ctx, p.Root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Memory.Save(ctx, base, []memory.Entry{{Title: "t", Content: "c"}}); err != nil {
		t.Fatal(err)
	}
	if batch, _ := sub.Next(); len(batch) != 1 || batch[0] != (events.ProjectsChanged{}) {
		t.Fatalf("after a memory save: %v", batch)
	}
}

package services

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/paths"
)

// The Projects list's order is kept like the other preferences: recent
// until set, a stored one survives a reopen of the store, an unknown one
// is refused, and a stored value pi-tui cannot read gives recent.
func TestProjectSort(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pl := paths.Places{AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data"), Home: dir}
	h, err := Open(ctx, pl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := h.ProjectSort(ctx); err != nil || o != ProjectSortRecent {
		t.Fatalf("default = %q, %v", o, err)
	}
	if err := h.SetProjectSort(ctx, "size"); err == nil {
		t.Error("an unknown order was accepted")
	}
	if err := h.SetProjectSort(ctx, ProjectSortName); err != nil {
		t.Fatal(err)
	}
	h.Close()
	h, err = Open(ctx, pl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if o, _ := h.ProjectSort(ctx); o != ProjectSortName {
		t.Errorf("after reopen = %q", o)
	}
	if err := h.setPref(ctx, projectSortKey, "sideways"); err != nil {
		t.Fatal(err)
	}
	if o, _ := h.ProjectSort(ctx); o != ProjectSortRecent {
		t.Errorf("unreadable value gives %q, want recent", o)
	}
}

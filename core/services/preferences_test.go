package services

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/paths"
)

func TestPreferences(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h, err := Open(ctx, paths.Places{AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data"), Home: dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p, err := h.Preferences(ctx)
	if err != nil || p != DefaultPreferences() {
		t.Fatalf("defaults = %+v, %v", p, err)
	}
	if err := h.SetPermissionMode(ctx, "full-auto"); err != nil {
		t.Fatal(err)
	}
	if err := h.SetPermissionMode(ctx, "yolo"); err == nil {
		t.Error("unknown mode accepted")
	}
	if err := h.SetIdleTTL(ctx, 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := h.SetIdleTTL(ctx, time.Second); err == nil {
		t.Error("a one-second TTL accepted")
	}
	p, _ = h.Preferences(ctx)
	if p.PermissionMode != "full-auto" || p.IdleTTL != 30*time.Minute {
		t.Errorf("stored = %+v", p)
	}
}

package services

import (
	"context"
	"path/filepath"
	"strings"
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

// The engine and the pi cap are stored like the permission mode: a bad
// value is refused with a line naming the choices, a stored one survives
// a reopen of the store, and an unreadable stored value gives the default.
func TestEnginePreferences(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	pl := paths.Places{AgentDir: filepath.Join(dir, "agent"), DataDir: filepath.Join(dir, "data"), Home: dir}
	engines := Options{Engines: []string{"pi", "builtin"}}
	h, err := Open(ctx, pl, engines)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := h.Preferences(ctx); p.Engine != EngineAuto || p.MaxPiRuntimes != DefaultMaxPiRuntimes {
		t.Fatalf("defaults = %+v", p)
	}
	if err := h.SetEngine(ctx, "node"); err == nil || !strings.Contains(err.Error(), "auto, pi, builtin") {
		t.Errorf("unknown engine: %v", err)
	}
	for _, n := range []int{0, -1, MaxPiRuntimesLimit + 1} {
		if err := h.SetMaxPiRuntimes(ctx, n); err == nil {
			t.Errorf("cap %d accepted", n)
		}
	}
	if err := h.SetEngine(ctx, "builtin"); err != nil {
		t.Fatal(err)
	}
	if err := h.SetMaxPiRuntimes(ctx, 2); err != nil {
		t.Fatal(err)
	}
	h.Close()
	h, err = Open(ctx, pl, engines)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if p, _ := h.Preferences(ctx); p.Engine != "builtin" || p.MaxPiRuntimes != 2 {
		t.Errorf("after reopen = %+v", p)
	}
	// A value written by another program that pi-tui cannot read.
	if err := h.setPref(ctx, "engine", "quantum"); err != nil {
		t.Fatal(err)
	}
	if err := h.setPref(ctx, "maxPiRuntimes", "lots"); err != nil {
		t.Fatal(err)
	}
	if p, _ := h.Preferences(ctx); p.Engine != EngineAuto || p.MaxPiRuntimes != DefaultMaxPiRuntimes {
		t.Errorf("unreadable values = %+v, want the defaults", p)
	}
}

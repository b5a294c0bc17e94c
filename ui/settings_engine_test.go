package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// memEngine keeps the engine preference the way the core's services
// will (settings.EngineSettings), for the Settings rows until they
// do.
type memEngine struct {
	mu     sync.Mutex
	engine string
	maxPi  int
}

func (e *memEngine) EnginePreferences(context.Context) (string, int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.engine, e.maxPi, nil
}

func (e *memEngine) SetEngine(_ context.Context, v string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch v {
	case "auto", "pi", "builtin":
		e.engine = v
		return nil
	}
	return fmt.Errorf("unknown engine %q", v)
}

func (e *memEngine) SetMaxPiRuntimes(_ context.Context, n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.maxPi = n
	return nil
}

func (e *memEngine) get() (string, int) {
	v, n, _ := e.EnginePreferences(context.Background())
	return v, n
}

// fakePi writes an executable that answers --version with version.
func fakePi(t *testing.T, dir, version string) string {
	t.Helper()
	p := filepath.Join(dir, "pi")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// The Engine row says which engine runs and which pi was found (running
// it with --version), and enter cycles auto → pi → builtin; the Live pi
// runtimes row cycles the cap. A pi whose RPC pi-tui does not speak is
// named with its version.
func TestSettingsEngineRows(t *testing.T) {
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.env["PI_TUI_PI"] = fakePi(t, f.dir("bin"), "1.6.0")
	eng := &memEngine{engine: "auto", maxPi: 4}
	m := f.model()
	m.settings.SetEngineSettings(eng)
	s := newSession(t, m, 140, 40)
	s.waitFor("› proj")
	s.keys("3")
	s.waitFor("Engine                auto — runs pi 1.6.0 (~/bin/pi)", "Live pi runtimes      4 — pi processes alive at once")
	for range 6 {
		s.keys("down")
	}
	s.keys("enter")
	s.waitFor("engine: pi", "Engine                pi — runs pi 1.6.0 (~/bin/pi)")
	s.keys("enter")
	s.waitFor("builtin — pi-tui's own engine; pi 1.6.0 (~/bin/pi) is not used")
	if v, _ := eng.get(); v != "builtin" {
		t.Fatalf("engine stored: %q", v)
	}
	s.keys("down", "enter")
	s.waitFor("live pi runtimes: at most 8", "Live pi runtimes      8 —")
	if _, n := eng.get(); n != 8 {
		t.Fatalf("cap stored: %d", n)
	}

	// An unsupported pi (upgraded in place: another size, so asked
	// again), seen when the tab is read again (r).
	fakePi(t, f.dir("bin"), "0.12.0")
	// Each press waits for the row's new value in a frame: a notice
	// repeated word for word is not drawn again.
	s.keys("up", "enter") // builtin → auto
	s.waitScreen("engine: auto", "Engine                auto")
	s.keys("enter")
	s.waitScreen("engine: pi", "Engine                pi")
	s.keys("r")
	s.waitFor("pi — sessions cannot start: pi 0.12.0 at ~/bin/pi speaks an RPC pi-tui does not support")
	s.final()
}

package runtimes

import (
	"context"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// State names the engine of the session's live runtime, after a reuse
// too (runtime_reused names none); without a runtime it names none.
func TestStateNamesTheLiveEngine(t *testing.T) {
	r := newPiRig(t, fakepi.Script{}, nil)
	if st := r.m.State(r.sid); st.Engine != "" {
		t.Fatalf("before a launch: %+v", st)
	}
	if err := r.m.Prewarm(context.Background(), r.sid); err != nil {
		t.Fatal(err)
	}
	r.prompt("hi")
	st := r.m.State(r.sid)
	if _, ok := st.Last.(events.RuntimeReused); !ok || st.Engine != "pi" || st.EngineVersion != "1.6.0" {
		t.Errorf("after a reuse: last %T, engine %q %q", st.Last, st.Engine, st.EngineVersion)
	}
}

package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestKeyChangeRestartsTheRuntime: a new key in auth.json reaches the
// next prompt: the idle runtime holding the old one is replaced
// (key-changed), and the key itself is in no event.
func TestKeyChangeRestartsTheRuntime(t *testing.T) {
	r := newRig(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} }, nil)
	r.prompt("one")
	r.take()
	auth := filepath.Join(r.h.Places.AgentDir, "auth.json")
	if err := os.WriteFile(auth, []byte(`{"fake":{"type":"api_key","key":"sk-rotated-key-0123456789"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r.prompt("two")
	var launched *events.RuntimeLaunched
	for _, e := range r.take() {
		if l, ok := e.(events.RuntimeLaunched); ok {
			launched = &l
		}
		if line, _ := events.Marshal(e); strings.Contains(string(line), "sk-rotated-key-0123456789") {
			t.Errorf("the key is in an event: %s", line)
		}
	}
	if launched == nil || launched.Reason != ReasonKeyChanged {
		t.Errorf("launch after the key changed = %+v", launched)
	}
}

package runtimes

import (
	"context"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// A compaction ends with one compaction_end whatever ends it (ADR 0084):
// one that finds nothing to compact says so in one, though the engine
// never started it, and one whose summary fails is said once, by the
// engine, not again by the manager. A front end ends its /compact on
// that event alone.
func TestEveryCompactionEndsOnce(t *testing.T) {
	script := func(n int, req fakemodel.Request) fakemodel.Reply {
		if strings.HasPrefix(req.System, "You summarise") {
			return fakemodel.Reply{Status: 500}
		}
		return fakemodel.Reply{Text: "ok"}
	}
	r := newRig(t, script, nil)
	ctx := context.Background()
	r.prompt("one")
	r.take()
	if _, err := r.m.Compact(ctx, r.sid, "", ""); err == nil {
		t.Fatal("a session of one turn compacted")
	}
	if ends := find[events.CompactionEnded](r.take()); len(ends) != 1 || !strings.Contains(ends[0].Error, "nothing to compact") {
		t.Fatalf("nothing to compact ended with %+v; want one compaction_end saying so", ends)
	}
	r.prompt("two")
	r.take()
	if _, err := r.m.Compact(ctx, r.sid, "", ""); err == nil {
		t.Fatal("a compaction whose summary failed succeeded")
	}
	if ends := find[events.CompactionEnded](r.take()); len(ends) != 1 || ends[0].Error == "" {
		t.Fatalf("a failed summary ended with %+v; want one compaction_end with the error", ends)
	}
}

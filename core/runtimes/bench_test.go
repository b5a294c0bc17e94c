package runtimes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// BenchmarkPrepareUnchanged is the host's work before a prompt when
// nothing changed: resolve the model, the root chain (32 KiB of
// instructions), load the memory (32 KiB), build the system prompt,
// fingerprint it and reuse the idle runtime. Target: ≤ 300 µs/op.
func BenchmarkPrepareUnchanged(b *testing.B) {
	r := newBenchRig(b)
	ctx := context.Background()
	if _, err := r.m.Prepare(ctx, r.sid, ""); err != nil {
		b.Fatal(err)
	}
	// Unchanged means as a project's files are between prompts: written
	// longer ago than the 2 s within which a file system's timestamps may
	// still hide a change, so the host may trust what it stat'ed.
	time.Sleep(2100 * time.Millisecond)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.m.Prepare(ctx, r.sid, ""); err != nil {
			b.Fatal(err)
		}
	}
	if n := len(find[events.RuntimeLaunched](r.take())); n != 1 {
		b.Fatalf("%d launches; the runtime was not reused", n)
	}
}

func newBenchRig(b *testing.B) *rig {
	r := newRigTB(b, func(n int, req fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	r.write("AGENTS.md", strings.Repeat("- a rule of the project, written out in full\n", 745)) // ~32 KiB
	m, _ := r.h.Memory.Load(context.Background(), r.root)
	entries := make([]memory.Entry, 100)
	for i := range entries {
		entries[i] = memory.Entry{Title: "note", Content: strings.Repeat("memory text ", 26)}
	}
	if _, err := r.h.Memory.Save(context.Background(), m, entries); err != nil {
		b.Fatal(err)
	}
	return r
}

package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The memory editor marks the agent's entries, turns the agent-writes
// switch on and off with w, and an entry the user edits becomes theirs.
func TestMemoryEditorAgentEntriesAndSwitch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t)
	f.add("proj", "proj", true)
	root := filepath.Join(f.home, "proj")
	p, err := f.host.Projects.Find(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := f.host.Memory.Load(ctx, root)
	if _, err := f.host.Memory.Save(ctx, m, []memory.Entry{{ID: "a", Content: "Run task test.", By: memory.ByAgent}, {ID: "b", Content: "Mine."}}); err != nil {
		t.Fatal(err)
	}
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "m")
	s.waitFor("Run task test.  · by the agent", "agent writes: off")
	s.keys("w")
	s.waitFor("agent writes: on")
	if on, _ := f.host.Memory.AgentWrites(ctx, p.ID); !on {
		t.Fatal("w did not turn the switch on")
	}
	// The user edits the agent's entry: it is theirs now.
	s.keys("enter", "ctrl+end")
	s.tm.Type(" Always.")
	s.keys("esc", "ctrl+s")
	s.waitFor("saved memory of proj: 2 entries")
	m, _ = f.host.Memory.Load(ctx, root)
	if m.Entries[0].Content != "Run task test. Always." || m.Entries[0].By != "" {
		t.Errorf("after the user's edit: %+v", m.Entries[0])
	}
	s.keys("w")
	s.waitFor("agent writes off")
	if on, _ := f.host.Memory.AgentWrites(ctx, p.ID); on {
		t.Error("w did not turn the switch off")
	}
	s.final()
}

// A remember call shows in the transcript with what it saved, and
// /undo-memory takes it back out of the store.
func TestSessionShowsRememberAndUndoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newKitRig(t, 120, 36, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "noted"}
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "m1", Name: "remember",
			Args: map[string]string{"action": "add", "title": "Tests", "content": "Run task test before committing."}}}}
	}, true)
	h := r.m.opts.Host
	root := filepath.Join(r.home, "proj")
	p, err := h.Projects.Find(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Memory.SetAgentWrites(ctx, p.ID, true); err != nil {
		t.Fatal(err)
	}
	r.chat()
	r.say("remember how to test")
	r.waitFor("noted", "tokens ")
	if m, _ := h.Memory.Load(ctx, root); len(m.Entries) != 1 || m.Entries[0].By != memory.ByAgent {
		t.Fatalf("stored: %+v", m.Entries)
	}
	r.command("/undo-memory", "undone: added entry")
	if m, _ := h.Memory.Load(ctx, root); len(m.Entries) != 0 {
		t.Errorf("after /undo-memory: %+v", m.Entries)
	}
	r.command("/undo-memory", "no memory change in this session that is not undone")
	final := r.final()
	for _, want := range []string{"✓ remember", `memory: added entry m`, `"Tests" (memory now 42 of 32,768 bytes) · undone`, "+ ## Tests", "+ Run task test before committing."} {
		if !strings.Contains(final, want) {
			t.Errorf("transcript lacks %q:\n%s", want, final)
		}
	}
}

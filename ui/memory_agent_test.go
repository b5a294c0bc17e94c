package ui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/memory"
)

// The memory editor marks the agent's entries, turns the agent-writes
// switch on and off with w, and an entry the user edits becomes theirs.
func TestMemoryEditorAgentEntriesAndSwitch(t *testing.T) {
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

package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The memory editor's sentences wrap at 80×24 and 60×16, never cut: the
// empty list's ("… notes the agent should know about this p" ended at
// the edge, issue 24), the meter with the agent-writes switch and the
// over-the-limit refusal, and the key hints, which break between hints.
// A long entry name is data: it is cut with …, and what the row says of
// the entry ("· by the agent") stays whole beside it.
func TestMemoryEditorLinesFit(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {60, 16}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.add("proj", "proj", false)
			s := f.run(size.w, size.h)
			s.waitFor("proj")
			s.keys("enter", "m")
			empty := "No memory yet. Press a to add an entry: notes the agent should know about this project."
			frame := s.waitWhole(empty, "agent writes: off")
			assertFrame(t, frame, size.w, size.h)
			assertWordsWhole(t, frame, empty)
			assertHintsWhole(t, frame, "a add", "enter edit", "d delete", "w agent may write", "ctrl+s save", "esc back")

			// The switch on in an untrusted project: the meter says why
			// it has no effect, whole.
			s.keys("w")
			meter := "0 / 32,768 bytes · agent writes: on (no effect: the project is not trusted)"
			frame = s.waitWhole(meter)
			assertFrame(t, frame, size.w, size.h)
			assertWordsWhole(t, frame, meter)

			// Over the limit: the refusal is whole, and so are the entry
			// editor's hints.
			s.keys("a", "tab")
			s.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("x", memory.LimitBytes+10)), Paste: true})
			refusal := "over the limit: saving is refused until you shorten it"
			frame = s.waitWhole(refusal)
			assertFrame(t, frame, size.w, size.h)
			assertWordsWhole(t, frame, refusal)
			assertHintsWhole(t, frame, "tab title/content", "esc back", "ctrl+s save", "f1 help")

			// The preview's heading wraps too.
			s.keys("esc", "p")
			head := "What a runtime receives after the project instructions (esc back):"
			frame = s.waitWhole(head)
			assertFrame(t, frame, size.w, size.h)
			assertWordsWhole(t, frame, head)
			s.final()
		})
	}
}

// An entry the agent wrote, with a name longer than the row: the name is
// cut, the row still says who wrote it.
func TestMemoryEditorRowKeepsWhoWroteIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	root := filepath.Join(f.home, "proj")
	base, err := f.host.Memory.Load(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	long := "How the build system caches generated code between runs and when it does not"
	if _, err := f.host.Memory.Save(context.Background(), base, []memory.Entry{{Title: long, Content: "notes", By: memory.ByAgent}}); err != nil {
		t.Fatal(err)
	}
	s := f.run(60, 16)
	s.waitFor("proj")
	s.keys("enter", "m")
	frame := s.sc.WaitFrame(func(fr string) bool { return strings.Contains(fr, "How the build") })
	assertFrame(t, frame, 60, 16)
	row := ""
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, "How the build") {
			row = strings.TrimRight(l, " ")
		}
	}
	if !strings.HasSuffix(row, "…  · by the agent") {
		t.Errorf("the row = %q, want the name cut and · by the agent after it", row)
	}
	s.final()
}

// assertHintsWhole fails when a key hint ("ctrl+s save") is not whole on
// one line of frame: hints break between hints, never inside one.
func assertHintsWhole(t *testing.T, frame string, hints ...string) {
	t.Helper()
	for _, h := range hints {
		found := false
		for _, l := range strings.Split(frame, "\n") {
			if strings.Contains(l, h) {
				found = true
			}
		}
		if !found {
			t.Errorf("the hint %q is not whole on a line:\n%s", h, frame)
		}
	}
}

func TestMemoryEditor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	root := filepath.Join(f.home, "proj")
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "m")
	s.waitFor("No memory yet")
	s.keys("a")
	s.tm.Type("Style")
	s.keys("enter")
	s.tm.Type("Use gofmt.")
	s.keys("esc", "a", "tab")
	s.tm.Type("Second note")
	s.keys("esc", "ctrl+s")
	s.waitFor("saved memory of proj: 2 entries")
	m, err := f.host.Memory.Load(context.Background(), root)
	if err != nil || m.Content != "## Style\n\nUse gofmt.\n\nSecond note" {
		t.Fatalf("memory show would print %q (%v)", m.Content, err)
	}

	// Delete asks, then the save removes it.
	s.keys("d")
	s.waitFor("Delete this entry?")
	s.keys("y", "ctrl+s")
	s.waitFor("saved memory of proj: 1 entry,")
	if m, _ = f.host.Memory.Load(context.Background(), root); m.Content != "## Style\n\nUse gofmt." {
		t.Errorf("after delete: %q", m.Content)
	}

	// An external save in the meantime is offered, not clobbered.
	s.keys("enter", "ctrl+end")
	s.tm.Type(" Always.")
	s.keys("esc")
	if _, err := f.host.Memory.Save(context.Background(), m, []memory.Entry{{Content: "from a script"}}); err != nil {
		t.Fatal(err)
	}
	s.keys("ctrl+s")
	s.waitFor("Memory changed; reload?", "overwrite with mine")
	if m2, _ := f.host.Memory.Load(context.Background(), root); m2.Content != "from a script" {
		t.Fatalf("the script's save was clobbered: %q", m2.Content)
	}
	s.keys("o")
	s.waitFor("saved memory of proj: 1 entry,")
	if m, _ = f.host.Memory.Load(context.Background(), root); m.Content != "## Style\n\nUse gofmt. Always." {
		t.Errorf("after overwrite: %q", m.Content)
	}
	s.final()
}

func TestOversizeMemoryIsRefusedAndKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "m")
	s.waitFor("No memory yet")
	s.keys("a", "tab")
	big := strings.Repeat("x", memory.LimitBytes+10)
	s.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	s.waitFor("over the limit")
	s.keys("ctrl+s")
	s.waitFor("memory is too large")
	m, _ := f.host.Memory.Load(context.Background(), filepath.Join(f.home, "proj"))
	if m.Content != "" {
		t.Error("an oversize memory was stored")
	}
	final := s.final()
	if !strings.Contains(final, "over the limit") {
		t.Errorf("the editor no longer holds the text:\n%s", final)
	}
}

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

// The memory editor's introduction and keys wrap at 60 columns; they
// were cut ("notes the agent shou", "ctrl+s s").
func TestMemoryEditorWrapsAtSixtyColumns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(60, 20)
	s.waitScreen("› proj")
	s.keys("enter", "m")
	frame := s.waitKeys("No memory yet. Press a to add an entry: notes the agent should know about this project.",
		"a add · enter edit · d delete · w agent may write · ctrl+s save · esc back")
	assertFrame(t, frame, 60, 20)
	s.final()
}

// TestUndoInMemoryEditor: ctrl+z and ctrl+y work in a memory entry.
func TestUndoInMemoryEditor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "m")
	s.waitFor("No memory yet")
	s.keys("a", "enter")
	s.tm.Type("Keep this.")
	s.keys("enter")
	s.tm.Type("Not this.")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlZ})
	s.keys("esc", "ctrl+s")
	s.waitFor("saved memory of proj: 1 entry,")
	m, err := f.host.Memory.Load(context.Background(), filepath.Join(f.home, "proj"))
	if err != nil || m.Content != "Keep this.\n" && m.Content != "Keep this." {
		t.Errorf("memory %q (%v)", m.Content, err)
	}
	s.final()
}

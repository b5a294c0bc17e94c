package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/memory"
)

func TestTooSmallAndResize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.run(40, 10)
	s.waitFor("too small")
	s.tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	s.waitFor("No projects yet")
	s.final()
}

func TestGoldenScreens(t *testing.T) {
	t.Parallel()
	// Each screen is captured once everything it loads is drawn: the
	// status bar's model is read off the UI goroutine, after the list.
	const loaded = "model: no model"
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		name := func(s string) string { return s + "-" + itoa(size.w) + "x" + itoa(size.h) }
		setup := func(t *testing.T) *fixture {
			f := newFixture(t)
			f.add("src/api", "api", true)
			f.add("src/web", "web", false)
			f.write("src/api/AGENTS.md", "# API\n\n- Run `make check`.\n")
			f.write("src/api/packages/db/AGENTS.md", "DB rules\n")
			// Pinned, so api is the first row whatever the clock says.
			list, _ := f.host.Projects.List(context.Background(), true)
			for _, p := range list {
				if p.Name == "api" {
					f.host.Projects.SetPinned(context.Background(), p.ID, true)
				}
			}
			return f
		}
		t.Run(name("projects"), func(t *testing.T) {
			t.Parallel()
			s := setup(t).run(size.w, size.h)
			s.waitFor("api", "web", "AGENTS.md ·", loaded)
			golden(t, name("projects"), s.final())
		})
		t.Run(name("menu"), func(t *testing.T) {
			t.Parallel()
			s := setup(t).run(size.w, size.h)
			s.waitFor("api", "AGENTS.md ·", loaded)
			s.keys("enter")
			s.waitFor("Show instructions")
			golden(t, name("menu"), s.final())
		})
		t.Run(name("editor"), func(t *testing.T) {
			t.Parallel()
			s := setup(t).run(size.w, size.h)
			s.waitFor("api", "AGENTS.md ·", loaded)
			s.keys("enter", "a")
			s.waitFor("make check")
			golden(t, name("editor"), s.final())
		})
		t.Run(name("memory"), func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			m, _ := f.host.Memory.Load(context.Background(), filepath.Join(f.home, "src/api"))
			f.host.Memory.Save(context.Background(), m, []memory.Entry{{ID: "a", Title: "Style", Content: "gofmt"}, {ID: "b", Content: "Tabs, not spaces."}})
			s := f.run(size.w, size.h)
			s.waitFor("api", "AGENTS.md ·", loaded)
			s.keys("enter", "m")
			s.waitFor("Tabs, not spaces.", "agent writes: off") // the switch is read after the entries
			golden(t, name("memory"), s.final())
		})
		t.Run(name("instructions"), func(t *testing.T) {
			t.Parallel()
			s := setup(t).run(size.w, size.h)
			s.waitFor("api", "AGENTS.md ·", loaded)
			s.keys("enter", "i")
			s.waitFor("Chain for the project root")
			golden(t, name("instructions"), s.final())
		})
		t.Run(name("settings"), func(t *testing.T) {
			t.Parallel()
			s := setup(t).run(size.w, size.h)
			s.waitFor("api", loaded)
			s.keys("3")
			// Lines wrap, so at 80×24 the guidance is below the screen.
			s.waitFor("Live pi runtimes", "pi not found")
			golden(t, name("settings"), s.final())
		})
	}
}

func TestKeysWaitWhileTooSmall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	f.write("proj/AGENTS.md", "text")
	s := f.run(100, 30)
	s.waitFor("proj")
	s.keys("enter", "a")
	s.waitFor("text")
	s.tm.Type("KEEP")
	s.tm.Send(tea.WindowSizeMsg{Width: 40, Height: 10})
	s.waitFor("too small")
	s.keys("esc", "d") // would discard if the editor got them
	s.tm.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	s.waitFor("KEEPtext")
	final := s.final()
	if !strings.Contains(final, "modified") {
		t.Errorf("the edit was lost while the window was small:\n%s", final)
	}
}

// A new session's introduction says what the agent may do, to its end:
// the safety half ("as you, and … only once you approve them") was cut
// at the screen's edge.
func TestIntroductionIsWhole(t *testing.T) {
	t.Parallel()
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			r.chat()
			intro := "Type a message and press enter. The agent works in proj: its file tools stay inside the project folder; " +
				"its commands run as you, and in the ask and auto-edits modes only once you approve them."
			frame := r.waitWhole(intro)
			assertFrame(t, frame, size.w, size.h)
			assertWordsWhole(t, frame, intro)
			r.final()
		})
	}
}

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

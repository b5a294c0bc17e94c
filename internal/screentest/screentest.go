// Package screentest drives a Bubble Tea program in tests the way a person
// uses a terminal: keys go in, and each wait ends when the screen shows
// what it looks for. It is the one harness the ui packages' tests and
// cmd/pi-tui's scenario table share, so that every wait has the same
// fail-safe bound.
package screentest

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/internal/waitbound"
)

// Limit bounds every wait and the program's end. It is a fail-safe, not
// a timing: a wait ends as soon as what it waits for is drawn, so the
// bound only decides how long a broken test takes to fail. It is generous
// because a test run under the race detector on a loaded machine (-race
// -cpu 1,2 -count 3 beside busy loops) can take many seconds for a frame
// that takes milliseconds alone.
const Limit = 60 * time.Second

// checkEvery is how often a wait looks at new output.
const checkEvery = 5 * time.Millisecond

// Screen is a running program and everything it has drawn.
type Screen struct {
	T  testing.TB
	TM *teatest.TestModel
	// Raw is every byte the program wrote to the terminal so far, for
	// checking what reached it (an escape sequence must not).
	Raw bytes.Buffer
	// read turns output into the text a wait looks in.
	read   func([]byte) []byte
	frames *frames
}

// Start runs m at w×h. read turns output into the text waits look in:
// Plain or Prose (nil: Plain).
//
// When the test ends the program is quit (a failed test logs its last
// screen), m is closed (if it has a Close method, as ui.Model does: it
// ends the program's subscriptions and timers), and the test waits until
// none of the program's commands is still running: a load still reading
// the test's folders would otherwise race the removal of its temp dir, or
// a later test.
func Start(t testing.TB, m tea.Model, w, h int, read func([]byte) []byte) *Screen {
	t.Helper()
	if read == nil {
		read = Plain
	}
	tr := &tracked{Model: m, work: &work{}, frames: newFrames()}
	tm := teatest.NewTestModel(t, tr, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() {
		tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(Limit))
		if t.Failed() {
			// A wait's own message has only the lines its frames changed.
			t.Logf("the screen when the test ended:\n%s", tm.FinalModel(t).View())
		}
		if c, ok := m.(interface{ Close() }); ok {
			c.Close()
		}
		if n := tr.work.idle(Limit); n > 0 {
			t.Errorf("%d commands of the program still run %s after it ended", n, Limit)
		}
	})
	return &Screen{T: t, TM: tm, read: read, frames: tr.frames}
}

// WaitFrame waits until a frame satisfies ok and returns that frame (as
// read turns it into text).
func (s *Screen) WaitFrame(ok func(frame string) bool) string {
	s.T.Helper()
	deadline := time.NewTimer(Limit)
	defer deadline.Stop()
	for {
		view, next := s.frames.now()
		if seen := string(s.read([]byte(view))); ok(seen) {
			return seen
		}
		select {
		case <-next:
		case <-deadline.C:
			s.T.Fatalf("WaitFrame: no frame as wanted after %s. The last frame:\n%s", Limit, s.read([]byte(view)))
		}
	}
}

// WaitScreen waits until one frame shows all of want at once, as the
// screen does: a state, where WaitFor waits for output that may have
// come in different frames. It reads the frames the model draws, not the
// terminal's bytes, so text an earlier frame left on a line counts only
// while that frame's successor still shows it.
func (s *Screen) WaitScreen(want ...string) {
	s.T.Helper()
	deadline := time.NewTimer(Limit)
	defer deadline.Stop()
	for {
		view, next := s.frames.now()
		seen := string(s.read([]byte(view)))
		all := true
		for _, w := range want {
			if !strings.Contains(seen, w) {
				all = false
				break
			}
		}
		if all {
			return
		}
		select {
		case <-next:
		case <-deadline.C:
			s.T.Fatalf("WaitScreen: no frame showed all of %q after %s. The last frame:\n%s", want, Limit, seen)
		}
	}
}

// WaitFor waits until the program has drawn all of want since the last
// wait.
func (s *Screen) WaitFor(want ...string) {
	s.T.Helper()
	s.WaitFrom(s.Raw.Len(), want...)
}

// WaitFrom is WaitFor over the output from offset start of Raw, so text
// that an earlier wait already read counts.
func (s *Screen) WaitFrom(start int, want ...string) {
	s.T.Helper()
	s.wait(start, func(seen []byte) bool {
		for _, w := range want {
			if !bytes.Contains(seen, []byte(w)) {
				return false
			}
		}
		return true
	})
}

// WaitAny waits until one of want appears in the output drawn since the
// call, and returns it.
func (s *Screen) WaitAny(want ...string) string {
	s.T.Helper()
	found := ""
	s.wait(s.Raw.Len(), func(seen []byte) bool {
		for _, w := range want {
			if bytes.Contains(seen, []byte(w)) {
				found = w
				return true
			}
		}
		return false
	})
	return found
}

// wait reads output into Raw until done holds for the text read from
// offset start.
func (s *Screen) wait(start int, done func(seen []byte) bool) {
	s.T.Helper()
	read, looked := s.Raw.Len(), -1
	teatest.WaitFor(s.T, s.TM.Output(), func(b []byte) bool {
		// b is all this wait has read so far; keep what is new.
		s.Raw.Write(b[s.Raw.Len()-read:])
		if s.Raw.Len() == looked {
			return false // nothing new since the last look
		}
		looked = s.Raw.Len()
		return done(s.read(s.Raw.Bytes()[start:]))
	}, teatest.WithDuration(Limit), teatest.WithCheckInterval(checkEvery))
}

// keyNames are the keys Keys sends by name; any other string is typed.
var keyNames = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "backspace": tea.KeyBackspace,
	"up": tea.KeyUp, "down": tea.KeyDown, "home": tea.KeyHome, "end": tea.KeyEnd, "pgdown": tea.KeyPgDown,
	"ctrl+a": tea.KeyCtrlA, "ctrl+g": tea.KeyCtrlG, "ctrl+n": tea.KeyCtrlN, "ctrl+z": tea.KeyCtrlZ,
	"ctrl+c": tea.KeyCtrlC, "ctrl+e": tea.KeyCtrlE, "ctrl+k": tea.KeyCtrlK, "ctrl+l": tea.KeyCtrlL,
	"ctrl+o": tea.KeyCtrlO, "ctrl+p": tea.KeyCtrlP, "ctrl+s": tea.KeyCtrlS, "ctrl+u": tea.KeyCtrlU, "ctrl+end": tea.KeyCtrlEnd,
}

// Keys presses each key: a name from keyNames, or else the runes of the
// string as one key message (as a terminal without bracketed paste sends
// fast typing).
func (s *Screen) Keys(ks ...string) {
	for _, k := range ks {
		if t, ok := keyNames[k]; ok {
			s.TM.Send(tea.KeyMsg{Type: t})
			continue
		}
		s.TM.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	}
}

// Final quits and returns the last frame as View() draws it; Raw then
// holds everything the program wrote.
func (s *Screen) Final() string {
	s.T.Helper()
	s.TM.Quit()
	view := s.TM.FinalModel(s.T, teatest.WithFinalTimeout(Limit)).View()
	rest, _ := io.ReadAll(s.TM.Output())
	s.Raw.Write(rest)
	return view
}

// sgr matches the colour and attribute sequences a frame may hold even
// without colour: the text fields' reverse-video cursor (NO_COLOR keeps
// attributes).
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Plain is output without colour and attribute sequences: text is looked
// for, and compared with golden files, without them.
func Plain(b []byte) []byte { return sgr.ReplaceAll(b, nil) }

// Prose is output read as a person reads the screen: without escape
// codes, a dialog's side borders and line breaks, since a sentence may
// wrap; runs of white space are one space.
func Prose(b []byte) []byte {
	text := strings.ReplaceAll(ansi.Strip(string(b)), "│", " ")
	return []byte(strings.Join(strings.Fields(text), " "))
}

// Main runs a ui package's tests (call it from TestMain) with lipgloss's
// process-wide colour profile set once, to plain text, before any test
// starts: the tests run in parallel, and setting it as each starts would
// race with the others' rendering. Up to four run at once: a test of a
// program mostly waits for its frames, its files and the processes it
// starts (see internal/waitbound).
func Main(m *testing.M) int {
	lipgloss.SetColorProfile(termenv.Ascii)
	return waitbound.Main(m, 4)
}

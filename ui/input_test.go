package ui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

func pasteMsg(text string) tea.KeyMsg {
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text), Paste: true}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "pasted line %d", i)
	}
	return b.String()
}

// TestPasted10LinesKeepTheScreen: a paste of 10 lines stays inline (only
// a longer one collapses into a marker) and grows the input to a third of
// the screen, which shows where it is in the text; once sent, the header
// names the session by the message's first line only (as the list does),
// and the answer, the state line and the input stay on screen.
func TestPasted10LinesKeepTheScreen(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, echoModel, true)
	r.chat()
	r.tm.Send(pasteMsg(numbered(10)))
	// 22 rows of body: the input takes 7, the last of them the cursor's.
	r.waitFor("↑ pasted line 4", "pasted line 10")
	if frame := r.sc.WaitFrame(func(string) bool { return true }); strings.Contains(frame, "[paste #") {
		t.Errorf("a 10-line paste collapsed:\n%s", frame)
	}
	r.keys("enter")
	r.waitFor("got 10 lines", "tokens ")
	final := r.final()
	lines := strings.Split(final, "\n")
	if len(lines) != 24 {
		t.Fatalf("the frame has %d lines:\n%s", len(lines), final)
	}
	if head := lines[1]; !strings.Contains(head, "pasted line 1") || strings.Contains(head, "pasted line 2") {
		t.Errorf("header %q", head)
	}
	for _, want := range []string{"got 10 lines", "runtime idle", "›", "model: fake/m1"} {
		if !strings.Contains(final, want) {
			t.Errorf("%q is off screen:\n%s", want, final)
		}
	}
}

// TestPasteOf5000LinesIsSentWhole: a bracketed paste of 5,000 lines is
// inserted at once, as one marker, and reaches the model whole.
func TestPasteOf5000LinesIsSentWhole(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, echoModel, true)
	r.chat()
	text := numbered(5000)
	r.tm.Send(pasteMsg(text + "\r\n"))
	r.waitFor("[paste #1 +5,000 lines]")
	r.keys("enter")
	r.waitFor("got 5000 lines")
	reqs := r.fake.Requests()
	if got := reqs[len(reqs)-1].LastUser; got != text {
		t.Errorf("the model received %d bytes, want %d", len(got), len(text))
	}
	r.final()
}

// TestCursorShowsWithNoColor: with NO_COLOR (the Ascii profile, no
// colour) the chat input's cursor is still drawn, in reverse video.
func TestCursorShowsWithNoColor(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, echoModel, true)
	r.chat()
	r.tm.Type("hi")
	r.waitFor("› hi")
	r.final()
	if !bytes.Contains(r.raw.Bytes(), []byte("hi\x1b[7m \x1b[0m")) {
		t.Errorf("no cursor after the typed text in the output")
	}
}

// TestReadlineUndoRedoInChat: readline keys and undo/redo edit the chat
// input; what is sent is what the input shows.
func TestReadlineUndoRedoInChat(t *testing.T) {
	t.Parallel()
	var got []string
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		got = append(got, req.LastUser)
		return fakemodel.Reply{Text: "ok " + req.LastUser}
	}, true)
	r.chat()
	send := func(msgs ...tea.KeyMsg) {
		for _, m := range msgs {
			r.tm.Send(m)
		}
	}
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	alt := func(c rune) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{c}, Alt: true} }
	r.tm.Type("hello wide world")
	send(tea.KeyMsg{Type: tea.KeyCtrlW}, runes("there"), // hello wide there
		alt('b'), tea.KeyMsg{Type: tea.KeyCtrlLeft}, tea.KeyMsg{Type: tea.KeyCtrlK}, // hello
		tea.KeyMsg{Type: tea.KeyCtrlA}, runes("> "), tea.KeyMsg{Type: tea.KeyCtrlE}, runes("!"), // > hello !
		tea.KeyMsg{Type: tea.KeyCtrlZ}, tea.KeyMsg{Type: tea.KeyCtrlZ}, tea.KeyMsg{Type: tea.KeyCtrlY}, // > hello
		tea.KeyMsg{Type: tea.KeyCtrlRight}, alt('f'), runes("."), tea.KeyMsg{Type: tea.KeyEnter})
	r.waitFor("ok > hello .")
	send(runes("temporary"), tea.KeyMsg{Type: tea.KeyCtrlU}, runes("kept"), tea.KeyMsg{Type: tea.KeyEnter})
	r.waitFor("ok kept")
	r.final()
	if len(got) != 2 || got[0] != "> hello ." || got[1] != "kept" {
		t.Errorf("the model received %q", got)
	}
}

// TestKeysOfOneReadAreEachHandled: "jj" typed fast over SSH arrives as one
// key message; in the projects list it moves down twice, and in a text
// field it is text.
func TestKeysOfOneReadAreEachHandled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, n := range []string{"alpha", "beta", "gamma"} {
		f.add(n, n, true)
	}
	s := f.run(100, 30)
	s.waitFor("gamma", "beta", "alpha")
	// By name, from the top: the recent order depends on the milliseconds
	// the three were added in, which may be one. (The notice first: the
	// next key clears it.)
	s.keys("s")
	s.waitFor("sorted by name")
	s.keys("home")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	s.keys("enter", "a")
	s.waitFor("~/gamma/AGENTS.md", "new file from the starter template")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	s.waitFor("jj# Project")
	s.final()
}

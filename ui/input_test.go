package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
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

// inputRows returns the frame's rows from the input's prompt on.
func inputRows(frame string) []string {
	rows := strings.Split(frame, "\n")
	for i, r := range rows {
		if strings.HasPrefix(r, "› ") {
			return rows[i:]
		}
	}
	return nil
}

// A paste of 200 lines shows in the input as one marker, as pi shows it;
// the model and the session file get all 200 lines, the transcript shows
// them as pi does, and ↑ brings the message back with its marker.
func TestLongPasteIsOneMarkerAndIsSentWhole(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, func(n int, req fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Text: fmt.Sprintf("answer %d: got %d lines", n+1, strings.Count(req.LastUser, "\n")+1)}
			}, true)
			r.chat()
			text := numbered(200)
			r.tm.Send(pasteMsg(text + "\n"))
			frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "› [paste #1 +200 lines]") })
			in := inputRows(frame)
			if strings.Contains(frame, "pasted line") || len(in) == 0 || strings.TrimSpace(in[1]) != "" {
				t.Errorf("the paste is not one marker line in the input:\n%s", frame)
			}
			r.keys("enter")
			r.waitFor("answer 1: got 200 lines")
			reqs := r.fake.Requests()
			if got := reqs[len(reqs)-1].LastUser; got != text {
				t.Errorf("the model received %d lines (%q…), want the 200 pasted", strings.Count(got, "\n")+1, got[:min(len(got), 40)])
			}
			ids := r.sessionIDs()
			s, err := r.m.opts.Host.Runtimes.Sessions().Open(context.Background(), ids[0])
			if err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(s.File())
			quoted, _ := json.Marshal(text)
			if err != nil || !strings.Contains(string(file), string(quoted)) || strings.Contains(string(file), "[paste #") {
				t.Errorf("the session file does not hold the whole paste (%v)", err)
			}
			// The transcript shows the message whole, as pi's does.
			r.waitScreen("pasted line 200", "answer 1: got 200 lines")
			// ↑ recalls the message as the input showed it; sent again, whole.
			r.keys("up")
			r.waitScreen("› [paste #1 +200 lines]")
			r.keys("enter")
			r.waitFor("answer 2: got 200 lines")
			reqs = r.fake.Requests()
			if got := reqs[len(reqs)-1].LastUser; got != text {
				t.Errorf("the recalled message reached the model as %d lines", strings.Count(got, "\n")+1)
			}
			r.final()
		})
	}
}

// ctrl+x on a marker (or just after it, where a paste leaves the cursor)
// opens it into its text, to edit; what is sent is the text as edited.
// ctrl+z collapses it again.
func TestPasteMarkerExpandsToEdit(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, echoModel, true)
	r.chat()
	r.tm.Type("fix this: ")
	r.tm.Send(pasteMsg(numbered(200)))
	r.waitScreen("› fix this: [paste #1 +200 lines]", "ctrl+x expands the paste")
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlX})
	frame := r.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "› fix this: pasted line 1") })
	if strings.Contains(frame, "[paste #") || !strings.Contains(frame, "pasted line 7") {
		t.Errorf("the expanded paste does not show its text to edit:\n%s", frame)
	}
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlZ})
	r.waitScreen("› fix this: [paste #1 +200 lines]")
	r.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlY})
	r.waitScreen("› fix this: pasted line 1")
	r.tm.Type("EDITED ")
	r.waitScreen("› fix this: EDITED pasted line 1")
	r.keys("enter")
	r.waitFor("got 200 lines")
	reqs := r.fake.Requests()
	if got := reqs[len(reqs)-1].LastUser; got != "fix this: EDITED "+numbered(200) {
		t.Errorf("the model received %q…", got[:min(len(got), 60)])
	}
	r.final()
}

// Two esc presses in one read arrive as alt+esc: both count, the first
// closing the help and the second the row menu beneath it.
func TestTwoEscInOneReadAreTwoPresses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	s := f.run(100, 30)
	s.waitFor("› shop")
	s.keys("enter")
	s.waitFor("Edit AGENTS.md")
	s.keys("?")
	s.waitFor("Keys · ")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyEsc, Alt: true})
	view := s.final()
	if strings.Contains(view, "Keys · ") || strings.Contains(view, "Edit AGENTS.md") {
		t.Errorf("help or menu still open after esc esc:\n%s", view)
	}
}

// esc and ctrl+s in one read (a slow link) arrive as alt+ctrl+s: they are
// esc (back from the entry to the list), then ctrl+s (save).
func TestEscThenCtrlSInOneRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(100, 30)
	s.waitFor("› proj")
	s.keys("enter")
	s.waitFor("Edit memory")
	s.keys("m")
	s.waitFor("No memory yet")
	s.keys("a")
	s.waitFor("tab title/content")
	s.tm.Type("a note")
	s.waitFor("a note")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS, Alt: true})
	s.waitFor("saved memory of proj")
	s.final()
}

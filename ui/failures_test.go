package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// callSays waits until the screen shows, as prose, the call line call
// followed on that line (wrapped or not) by the sentence why, with no
// other call's mark between. A line may wrap after a hyphen ("look-
// alike"), which prose reads with a space.
func callSays(t *testing.T, s *session, call, why string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(call) + `[^✓✗…]*?` + strings.ReplaceAll(regexp.QuoteMeta(why), "-", "- ?"))
	return s.sc.WaitFrame(func(frame string) bool { return re.MatchString(prose(frame)) })
}

// readMissing is a model that reads missing.txt, then a file whose name
// holds an escape sequence that retitles the window, then says it is
// done.
func readMissing(n int, req fakemodel.Request) fakemodel.Reply {
	switch n {
	case 0:
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r1", Name: "read", Args: map[string]string{"path": "missing.txt"}}}}
	case 1:
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r2", Name: "read", Args: map[string]string{"path": "gone\x1b]0;pwned\x07.txt"}}}}
	}
	return fakemodel.Reply{Text: "That file is not there."}
}

// TestFailedToolCallSaysWhy: a read of a file that does not exist shows
// the tool's error on the call's line, whole (wrapped at 80 columns),
// at 80×24 and 120×40, and again once the session is read back from its
// file. An error naming a file whose name holds an escape sequence shows
// it as text.
func TestFailedToolCallSaysWhy(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size[0], size[1], readMissing, true)
			r.chat()
			r.say("read missing.txt")
			r.waitFor("That file is not there.")
			const why = "Error: missing.txt: no such file or directory"
			frame := callSays(t, r.session, "✗ read missing.txt ·", why)
			if strings.Contains(frame, "denied") {
				t.Errorf("a failure is called a denial:\n%s", frame)
			}
			callSays(t, r.session, `✗ read gone\x1b]0;pwned\x07.txt ·`, `Error: gone\x1b]0;pwned\x07.txt: no such file or directory`)
			// Read back from the file: the same sentences.
			r.sessions()
			r.keys("enter")
			callSays(t, r.session, "✗ read missing.txt ·", why)
			callSays(t, r.session, `✗ read gone\x1b]0;pwned\x07.txt ·`, `Error: gone\x1b]0;pwned\x07.txt: no such file or directory`)
			r.final()
			if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
				t.Errorf("the error's escape sequence reached the terminal: %q", found)
			}
		})
	}
}

// TestDeniedCallShowsTheReason: a write the user denies with a reason
// shows "denied:" and the reason on the call's line, which the model read
// too; a plain no shows "denied" alone. Read back from the file, the
// same.
func TestDeniedCallShowsTheReason(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult != "" {
			return fakemodel.Reply{Text: "ok, not writing " + req.LastUser}
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w" + req.LastUser, Name: "write", Args: map[string]string{"path": req.LastUser + ".txt", "content": "x"}}}}
	}, true)
	r.chat()
	r.say("first")
	r.waitFor("Allow write?")
	r.settle()
	r.keys("r")
	r.waitFor("Deny write: why?")
	r.tm.Type("the release is frozen until Monday, so wait")
	r.keys("enter")
	r.waitFor("ok, not writing first")
	callSays(t, r.session, "✗ write first.txt · denied:", "the release is frozen until Monday, so wait")
	r.say("second")
	r.waitFor("Allow write?")
	r.settle()
	r.keys("n")
	r.waitFor("ok, not writing second")
	frame := callSays(t, r.session, "✗ write second.txt · denied", "not writing second")
	if regexp.MustCompile(`second\.txt · denied:`).MatchString(prose(frame)) {
		t.Errorf("a plain no shows more than denied:\n%s", frame)
	}
	r.sessions()
	r.keys("enter")
	callSays(t, r.session, "✗ write first.txt · denied:", "the release is frozen until Monday, so wait")
	r.final()
}

// TestPiEngineFailedAndDeniedCallsSayWhy: on the pi engine (the fake pi,
// through the bridge) a failed read shows pi's error on its line and a
// write denied with a reason shows the reason, in the live transcript and
// in the one read back from pi's file after the turn.
func TestPiEngineFailedAndDeniedCallsSayWhy(t *testing.T) {
	t.Parallel()
	r := newPiKitRig(t, 100, 30, "pi", fakepi.Script{Replies: []fakepi.Reply{
		{Tools: []fakepi.Tool{{ID: "r1", Name: "read", Args: map[string]any{"path": "missing.txt"}}}},
		{Tools: []fakepi.Tool{{ID: "w1", Name: "write", Args: map[string]any{"path": "notes.txt", "content": "x"}}}},
		{Text: "both failed"},
	}})
	r.chat(true)
	r.tm.Type("go")
	r.keys("enter")
	r.waitFor("Allow write?")
	r.waitFor("▶ ready")
	r.keys("r")
	r.waitFor("Deny write: why?")
	r.tm.Type("not today")
	r.keys("enter")
	r.waitFor("both failed")
	// The bridge refuses a path that does not exist before pi reads it.
	callSays(t, r.session, "✗ read missing.txt ·", `Error: "missing.txt" does not exist (no look-alike name is read in its place)`)
	callSays(t, r.session, "✗ write notes.txt · denied:", "not today")
	r.sc.Final()
}

// TestRealPiFailedAndDeniedCallsSayWhy: on the real pi 1.6 (PI_TUI_PI),
// a write denied with a reason shows the reason, and an edit pi itself
// fails shows pi's error on its line.
func TestRealPiFailedAndDeniedCallsSayWhy(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 120, 36, argv[0], func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case req.LastToolResult != "":
			return fakemodel.Reply{Text: "done with " + req.LastUser}
		case req.LastUser == "write":
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "x"}}}}
		}
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "e1", Name: "edit", Args: map[string]any{"path": "notes.txt", "edits": []map[string]string{{"oldText": "nope", "newText": "x"}}}}}}
	})
	writeAt(t, filepath.Join(r.home, "proj", "notes.txt"), "hello\n")
	r.chat()
	r.say("write")
	r.waitFor("Allow write?")
	r.settle()
	r.keys("r")
	r.waitFor("Deny write: why?")
	r.tm.Type("keep my notes")
	r.keys("enter")
	r.waitFor("done with write")
	callSays(t, r.session, "✗ write notes.txt · denied:", "keep my notes")
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.say("edit")
	r.waitFor("done with edit")
	callSays(t, r.session, "✗ edit notes.txt ·", "Could not find the exact text in")
	r.final()
}

// A failed turn says its error once, in the transcript, with advice that
// fits the screen (no command-line flags).
func TestFailedTurnShowsItsErrorOnce(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Status: 500}
	}, true)
	r.chat()
	r.say("hello")
	r.waitFor("HTTP 500")
	r.keys("esc") // let the turn's end arrive behind the error
	view := r.final()
	if n := strings.Count(view, "HTTP 500"); n != 1 {
		t.Errorf("the error is shown %d times:\n%s", n, view)
	}
	if strings.Contains(view, "--model") {
		t.Errorf("the advice names a command-line flag:\n%s", view)
	}
}

// Retries say why, which attempt and how long the wait is, in one line
// that is updated in place; the answer follows.
func TestRetriesAreShownInPlace(t *testing.T) {
	t.Parallel()
	r := newKitRigWith(t, 120, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n < 2 {
			return fakemodel.Reply{Status: 503}
		}
		return fakemodel.Reply{Text: "finally here"}
	}, true, provider.Options{MaxRetries: 3, Backoff: time.Millisecond})
	r.chat()
	r.say("hello")
	r.waitFor("finally here")
	view := r.final()
	if !strings.Contains(view, "HTTP 503, retry 2 of 3 in ") {
		t.Errorf("no retry line:\n%s", view)
	}
	if n := strings.Count(view, "retry "); n != 1 {
		t.Errorf("%d retry lines, want one updated in place:\n%s", n, view)
	}
}

// A reopened session reads as it did live: a turn of tool calls only shows
// its tool lines (no empty "pi" header), and an aborted answer is marked
// partial, not shown as an error.
func TestReopenedTranscriptReadsAsLive(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	defer close(hold)
	r := newKitRig(t, 120, 36, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case strings.Contains(req.LastUser, "slow"):
			return fakemodel.Reply{Text: "some words", Hold: hold}
		case req.LastToolResult == "" && strings.Contains(req.LastUser, "read"):
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c1", Name: "read", Args: map[string]string{"path": "notes.txt"}}}}
		}
		return fakemodel.Reply{Text: "the notes say hello"}
	}, true)
	r.chat()
	r.say("read the notes")
	r.waitFor("the notes say hello")
	r.say("slow one")
	r.waitFor("some wo")
	r.keys("esc")
	r.waitFor("partial: the answer was cut off or aborted")
	r.sessions("enter open")
	r.keys("enter")
	r.waitFor("slow one")
	view := r.final()
	lines := strings.Split(view, "\n")
	headers := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "pi" || strings.HasPrefix(strings.TrimSpace(l), "pi  (partial") {
			headers++
		}
	}
	if headers != 2 {
		t.Errorf("%d answer headers, want 2 (the answer and the aborted one):\n%s", headers, view)
	}
	if !strings.Contains(view, "partial: the answer was cut off or aborted") || strings.Contains(view, "✗ ") || strings.Contains(view, "canceled") {
		t.Errorf("the aborted answer reopened as an error:\n%s", view)
	}
}

// An error that names a file of the repository (here the project's own
// folder, whose name carries a terminal title sequence) is shown with its
// control characters as text, never sent to the terminal.
func TestLoadErrorShowsControlsAsText(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := "p\x1b]2;pwned\x07"
	if err := os.MkdirAll(f.dir(dir+"/AGENTS.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.add(dir, "proj", true)
	s := f.run(100, 24)
	s.waitFor("proj")
	s.keys("enter", "a")
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Cannot edit") })
	if !strings.Contains(frame, `\x1b]2;pwned\x07`) || strings.Contains(frame, "\x1b]2;") {
		t.Errorf("the error's controls reach the terminal:\n%q", frame)
	}
	s.final()
}

// A call that got no answer at all (the model's server refuses the
// connection) is an error that says what failed, live and reopened; it is
// never labelled a partial answer.
func TestRefusedConnectionIsAnErrorNotAPartialAnswer(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echoModel, true)
			host := strings.TrimPrefix(r.fake.URL, "http://")
			r.fake.Close() // nothing listens there any more
			r.chat()
			r.say("hello")
			r.waitFor("refused")
			r.sessions("enter open")
			r.keys("enter")
			r.waitFor("hello")
			view := r.final()
			flat := strings.Join(strings.Fields(view), " ")
			if !strings.Contains(flat, "connection to "+host+" refused") {
				t.Errorf("the error does not say what failed (connection to %s refused):\n%s", host, view)
			}
			if strings.Contains(view, "partial") || strings.Contains(view, "cut off") {
				t.Errorf("a refused connection is labelled a partial answer:\n%s", view)
			}
		})
	}
}

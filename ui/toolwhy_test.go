package ui

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// A session file pi-tui cannot use is listed with a one-line reason; the
// session list still opens and the other sessions stay usable.
func TestBrokenSessionFileIsListedWithItsReason(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	dir := pisession.SessionsDir(filepath.Join(f.home, ".pi", "agent"), filepath.Join(f.home, "proj"))
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "2026-12-01T00-00-00-000Z_broken.jsonl"), []byte("this is not a session\n"), 0o600)
	s := f.run(120, 30)
	s.waitFor("proj")
	s.keys("enter", "o")
	s.waitFor("2026-12-01T00-00-00-000Z_broken.jsonl", "⚠")
	s.final()
}

// Sessions are named (/name, and r in the list), filtered by title and by
// content, counted in messages, and deleted only after a confirmation.
func TestSessionListRenameFilterDelete(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 120, 30, echo, true)
	r.chat()
	r.say("alpha question about zebras")
	r.waitFor("answer to alpha question")
	r.command("/name First talk", "named \"First talk\"")
	r.keys("ctrl+l")
	r.waitFor("First talk", "2 messages")
	r.keys("n")
	r.waitFor("Type a message")
	r.say("beta question")
	r.waitFor("answer to beta question")
	r.sessions("beta question  2 messages", "First talk")
	// Rename from the list (the newest, beta, is first).
	r.keys("r")
	r.waitFor("Rename session")
	r.keys("backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	r.tm.Type("Second talk")
	r.keys("enter")
	r.waitFor("Second talk  2 messages")
	// Filter by content: "zebras" is only in the first session's file body
	// (its title is "First talk").
	r.keys("/")
	r.tm.Type("zebras")
	r.waitFor("/ zebras", "First talk")
	view := r.final()
	if !strings.Contains(view, "First talk") || strings.Contains(view, "Second talk") {
		t.Errorf("the content filter shows:\n%s", view)
	}
}

// Deleting asks first and names the file; n keeps it, D removes it.
func TestSessionDeleteAsksFirst(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"n", "D"} {
		r := newKitRig(t, 140, 30, echo, true)
		r.chat()
		r.say("doomed")
		r.waitFor("answer to doomed")
		r.sessions("doomed  2 messages")
		files, _ := filepath.Glob(filepath.Join(r.home, ".pi", "agent", "sessions", "*", "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("files %v", files)
		}
		r.keys("D")
		r.waitFor("Delete session", "for pi as")
		r.keys(answer)
		if answer == "D" {
			r.waitFor("session deleted", "No sessions yet")
		}
		r.final()
		_, err := os.Stat(files[0])
		if gone := os.IsNotExist(err); gone != (answer == "D") {
			t.Errorf("answer %s: the file is gone: %v", answer, gone)
		}
	}
}

// /export writes the session as an HTML page in the project folder; the
// session list imports Claude Code's sessions with I, lists them at once,
// and exports the selected one with e.
func TestExportAndImportFromTheScreens(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 140, 30, echo, true)
	root := filepath.Join(r.home, "proj")
	r.chat()
	r.say("question <b>one</b>")
	r.waitFor("answer to question")
	r.command("/export", "exported to")
	pages, _ := filepath.Glob(filepath.Join(root, "pi-session-*.html"))
	if len(pages) != 1 {
		t.Fatalf("/export wrote %v, want one page in the project folder", pages)
	}
	if b, _ := os.ReadFile(pages[0]); !strings.Contains(string(b), "question &lt;b&gt;one&lt;/b&gt;") {
		t.Errorf("the exported page lacks the question, escaped")
	}

	// A Claude Code session run in the project's folder.
	dir := filepath.Join(r.home, ".claude", "projects", "-proj")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "6b6b6b6b-0000-4000-8000-000000000001.jsonl"), []byte(strings.Join([]string{
		`{"type":"summary","summary":"From Claude Code","leafUuid":"u2"}`,
		fmt.Sprintf(`{"parentUuid":null,"cwd":%q,"type":"user","message":{"role":"user","content":"CLAUDE-QUESTION"},"uuid":"u1","timestamp":"2025-10-01T09:00:00.000Z"}`, root),
		fmt.Sprintf(`{"parentUuid":"u1","cwd":%q,"type":"assistant","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"CLAUDE-ANSWER"}]},"uuid":"u2","timestamp":"2025-10-01T09:00:01.000Z"}`, root),
	}, "\n")+"\n"), 0o644)
	r.sessions("question <b>one</b>")
	r.keys("I")
	r.waitFor("imported 1 sessions (0 added to), 0 unchanged", "From Claude Code  2 messages")
	r.keys("down") // the imported session is older: second
	r.keys("e")
	r.waitFor("exported to")
	r.final()
	pages, _ = filepath.Glob(filepath.Join(root, "pi-session-*.html"))
	found := false
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		found = found || strings.Contains(string(b), "CLAUDE-ANSWER")
	}
	if len(pages) != 2 || !found {
		t.Errorf("e on the imported session wrote %v, want a second page holding its answer", pages)
	}
}

// The sessions header names every key of the list, wrapped rather than
// stopping at "D delete · /", and the worktree keys (d diff, M merge,
// X discard) once a session has a worktree.
func TestSessionsHeaderNamesTheKeys(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	always := []string{"Sessions · proj", "enter open session", "n new session", "w new session in a git worktree", "r rename", "D delete", "/ filter by title and content"}
	wt := []string{"d worktree diff", "M merge worktree", "X discard worktree"}
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			root := filepath.Join(r.home, "proj")
			worktreetest.Repo(t, root, nil)
			r.waitFor("proj")
			r.keys("enter", "o")
			r.waitFor("No sessions yet")
			r.keys("n")
			r.waitFor("Type a message")
			r.say("hi")
			r.waitFor("answer to hi")
			r.sessions()
			frame := r.waitWhole(always...)
			for _, w := range wt {
				if strings.Contains(squeezed(frame), squeezed(w)) {
					t.Errorf("with no worktree session the header says %q:\n%s", w, frame)
				}
			}
			assertFrame(t, frame, size.w, size.h)
			r.keys("w")
			r.waitFor("working on branch pi/")
			r.say("hi")
			r.waitFor("answer to hi")
			r.sessions("⎇ pi/")
			frame = r.waitWhole(append(always, wt...)...)
			assertFrame(t, frame, size.w, size.h)
			r.final()
		})
	}
}

// The sessions list names the palette's key with its own: ctrl+k, and
// ctrl+g while the filter has the keys (ctrl+k deletes there); each opens
// the palette.
func TestSessionsHeaderNamesThePalette(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(60, 20)
	s.waitScreen("› proj")
	s.keys("o")
	frame := s.waitKeys("Sessions · proj", "/ filter by title and content · ctrl+k command palette")
	assertFrame(t, frame, 60, 20)
	s.keys("/")
	s.waitKeys("/ filter by title and content · ctrl+g command palette")
	s.keys("ctrl+g")
	s.waitScreen("Go to", "a session, project, setting or command")
	s.final()
}

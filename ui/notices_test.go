package ui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// Notices write the home folder as ~, as dialogs do: the worktree
// notice named the whole folder ("… in /tmp/pt/home/data/worktrees/…",
// issue 24), and so did a refused merge's reason. Neither shows the home
// folder; both show the path from ~, whole.
func TestNoticePathsUseTilde(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			root := filepath.Join(r.home, "proj")
			worktreetest.Repo(t, root, nil)
			worktreetest.Git(t, root, "config", "user.name", "Test")
			worktreetest.Git(t, root, "config", "user.email", "test@example.com")
			r.waitFor("proj")
			r.keys("enter", "o")
			r.waitFor("No sessions yet")
			r.keys("w")
			r.waitFor("working on branch pi/")
			dirs, _ := filepath.Glob(filepath.Join(r.home, "data", "worktrees", "*", "*"))
			if len(dirs) != 1 {
				t.Fatalf("worktrees %v", dirs)
			}
			rel, _ := filepath.Rel(r.home, dirs[0])
			frame := r.waitWhole("(from main) in ~/" + rel)
			if strings.Contains(squeezed(frame), squeezed(r.home)) {
				t.Errorf("the notice names the home folder in full:\n%s", frame)
			}
			assertFrame(t, frame, size.w, size.h)

			// A merge the main checkout's uncommitted change refuses says
			// so in a notice naming the checkout from ~.
			worktreetest.Write(t, dirs[0], "notes.txt", "from the worktree\n")
			worktreetest.Write(t, root, "notes.txt", "changed in the main checkout\n")
			r.say("look")
			r.waitFor("answer to look")
			r.sessions("⎇ pi/")
			r.keys("M")
			r.waitFor("Merge pi/")
			r.keys("enter")
			frame = r.waitWhole("the main checkout ~/proj has uncommitted changes in notes.txt")
			if strings.Contains(squeezed(frame), squeezed(r.home)) {
				t.Errorf("the refusal names the home folder in full:\n%s", frame)
			}
			assertFrame(t, frame, size.w, size.h)
			r.final()
		})
	}
}

// A long notice wraps in the status bar, which grows to hold it while
// the screen above gives up the lines: "working on branch pi/… (from
// main) in /tmp/tri…" ended at the edge, the folder it names cut. Its end
// and the state beside it are on screen, and the chat still fits.
func TestLongNoticeIsWholeOnScreen(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	notice := regexp.MustCompile(`working on branch (pi/[0-9a-f]+) \(from main\) in`)
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			root := filepath.Join(r.home, "proj")
			worktreetest.Repo(t, root, nil)
			r.waitFor("proj")
			r.keys("enter", "o")
			r.waitFor("No sessions yet")
			r.keys("w")
			frame := r.sc.WaitFrame(func(f string) bool { return notice.MatchString(f) && strings.Contains(f, "Type a message") })
			dirs, _ := filepath.Glob(filepath.Join(r.home, "data", "worktrees", "*", "*"))
			if len(dirs) != 1 {
				t.Fatalf("worktrees %v", dirs)
			}
			branch := notice.FindStringSubmatch(frame)[1]
			rel, _ := filepath.Rel(r.home, dirs[0])
			want := fmt.Sprintf("working on branch %s (from main) in ~/%s", branch, rel)
			if size.w == 80 && len(want) < size.w-2 {
				// At 120 columns it fits one line, since it writes the
				// home folder as ~; at 80 it is still wider than the bar.
				t.Fatalf("the notice %q fits one line: the test needs a longer one", want)
			}
			// The notice ends the screen, the state beside its last line
			// or under it; the input is still above it.
			lines := strings.Split(frame, "\n")
			at := -1
			for i, l := range lines {
				if strings.Contains(l, "working on branch") {
					at = i
				}
			}
			bar := strings.Join(lines[max(at, 0):], "\n")
			if at < 0 || !strings.Contains(squeezed(bar), squeezed(want)) || !strings.Contains(bar, "runtime:") {
				t.Errorf("the status bar does not hold the whole notice %q and the state:\n%s", want, frame)
			}
			if strings.Contains(bar, "…") {
				t.Errorf("the notice is cut:\n%s", bar)
			}
			if !strings.Contains(strings.Join(lines[:max(at, 0)], "\n"), "\nruntime ") {
				t.Errorf("the chat's state line went under the notice:\n%s", frame)
			}
			assertFrame(t, frame, size.w, size.h)
			// The next key clears the notice, and the chat has its lines
			// back: the input's top border is again three lines up.
			r.tm.Type("x")
			frame = r.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "working on branch") && strings.Contains(f, "x") })
			assertFrame(t, frame, size.w, size.h)
			if n := len(strings.Split(frame, "\n")); n != size.h {
				t.Errorf("after the notice the frame has %d lines, want %d:\n%s", n, size.h, frame)
			}
			r.final()
		})
	}
}

// A key refused while the agent works says why, and the turn's end does
// not take that away before it is read: only the turn's own notices
// ("queued: …") are cleared when it ends.
func TestRefusalOutlivesTheTurnsEnd(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newKitRig(t, 140, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "partial words then more", Hold: hold}
	}, true)
	r.chat()
	r.say("slow")
	r.waitFor("partial")
	r.keys("ctrl+l")
	r.waitFor("the agent is working; press esc")
	close(hold)
	r.waitFor("tokens ") // the turn's end, drawn
	if view := r.final(); !strings.Contains(view, "the agent is working; press esc") {
		t.Errorf("the refusal is gone once the turn ended:\n%s", view)
	}
}

package ui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

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

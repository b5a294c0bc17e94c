package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
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

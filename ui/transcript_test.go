package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestLiveBashOutput: a bash call's output shows under its line while the
// command runs (it waits on a FIFO the test opens only once the output is
// on screen), with its elapsed time by the UI's clock; its last lines stay
// when it ends; ctrl+o expands one call, the latest or the one selected
// with alt+↑, and collapses it again, leaving the others as they are.
func TestLiveBashOutput(t *testing.T) {
	t.Parallel()
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o644); err != nil {
		t.Fatal(err)
	}
	commands := []string{
		"for i in 1 2 3 4 5 6 7; do echo a$i; done; read _ < " + gate + "; echo a-end",
		"for i in 1 2 3 4 5 6 7; do echo b$i; done",
	}
	r := newKitRig(t, 100, 50, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n < len(commands) {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c" + itoa(n), Name: "bash", Args: map[string]string{"command": commands[n]}}}}
		}
		return fakemodel.Reply{Text: "both ran"}
	}, true)
	if err := r.m.opts.Host.SetPermissionMode(context.Background(), "full-auto"); err != nil {
		t.Fatal(err)
	}
	r.chat()
	r.say("run them")
	r.waitFor("… bash for i in 1 2 3 4 5 6 7; do echo a$i; done; read _ <", "· 0s", "│ a7", "… 2 earlier lines")
	if len(r.fake.Requests()) != 1 {
		t.Fatal("the command ended before its output was shown")
	}
	r.wait(5 * time.Second)
	r.waitFor("· 5s")
	r.wait(70 * time.Second)
	r.waitFor("· 1m 15s")

	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	r.waitFor("both ran")

	alt := func(k tea.KeyType) { r.tm.Send(tea.KeyMsg{Type: k, Alt: true}) }
	r.keys("ctrl+o") // the latest call
	r.waitFor("$ for i in 1 2 3 4 5 6 7; do echo b$i; done", "│ b1")
	alt(tea.KeyUp) // selects the latest
	alt(tea.KeyUp) // then the one before
	r.waitFor("▸ ✓ bash for i in 1 2 3 4 5 6 7; do echo a$i")
	r.keys("ctrl+o")
	r.waitFor("│ a1")
	r.keys("ctrl+o") // collapses it again
	r.waitFor("… 3 earlier lines")
	final := r.final()
	for _, want := range []string{"│ a-end", "… 3 earlier lines", "│ b1", "│ b7"} {
		if !strings.Contains(final, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, final)
		}
	}
	if strings.Contains(final, "│ a1") || strings.Contains(final, "… 2 earlier lines") {
		t.Errorf("ctrl+o changed more than the selected call:\n%s", final)
	}
}

// /context writes every size as the first line does, digits grouped
// ("2,304 bytes", never "1445 bytes" beside it), at 80×24 and 120×40.
func TestContextSizesGroupDigits(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echoModel, true)
			r.chat()
			r.command("/context", "System prompt for", "environment")
			view := r.final()
			if ungrouped := regexp.MustCompile(`\d{4,} bytes?\b`).FindAllString(view, -1); len(ungrouped) > 0 {
				t.Errorf("sizes without grouped digits: %q\n%s", ungrouped, view)
			}
			// The base prompt is over a thousand bytes: its row shows the
			// grouping, not only the first line.
			base := regexp.MustCompile(`base +\d{1,3}(,\d{3})+ bytes`)
			if !base.MatchString(view) || !strings.Contains(view, "System prompt for") {
				t.Errorf("the base row does not group its digits:\n%s", view)
			}
		})
	}
}

// The line above the input is never cut: with two extensions' statuses
// beside the tokens and the last launch, it is wider than 120 columns,
// and the context meter at its end was cut ("context 0% of 1…"). What
// does not fit is left out whole, the meter kept.
func TestStateLineIsWhole(t *testing.T) {
	t.Parallel()
	for _, size := range trialSizes {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echo, true)
			r.chat()
			r.say("hello")
			r.waitFor("answer to hello")
			sid := r.sessionIDs()[0]
			pub := r.m.opts.Host.Events.Publish
			pub(events.ExtensionStatus{SessionID: sid, Method: "setStatus", Key: "build", Text: "build: 214 of 380 targets compiled"})
			pub(events.ExtensionStatus{SessionID: sid, Method: "setStatus", Key: "deploy", Text: "deploy: waiting for the staging checks"})
			// The line above the input starts with the runtime's state.
			stateLine := func(frame string) string {
				for _, l := range strings.Split(frame, "\n") {
					if strings.HasPrefix(l, "runtime ") {
						return l
					}
				}
				return ""
			}
			// The meter comes with the turn's usage, which may be drawn
			// after the statuses: wait for it too (cut, it still says
			// "context").
			frame := r.sc.WaitFrame(func(f string) bool {
				l := stateLine(f)
				return strings.HasPrefix(l, "runtime idle") && strings.Contains(l, "deploy: waiting for the staging checks") && strings.Contains(l, "context ")
			})
			line := strings.TrimRight(stateLine(frame), " ")
			if !strings.Contains(line, "context 0.1% of 100k") || strings.Contains(line, "…") {
				t.Errorf("the state line is cut or lost the context meter: %q", line)
			}
			assertFrame(t, frame, size.w, size.h)
			r.final()
		})
	}
}

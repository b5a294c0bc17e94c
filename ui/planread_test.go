package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
	"github.com/pi-tui/pi-tui/ui/common"
)

// longPlan is a plan of about 500 words, taller than the transcript at
// 80×24 and at 120×40: its first and last lines are marked.
func longPlan() string {
	var b strings.Builder
	b.WriteString("Goal: notes current (plan starts).\n\n")
	for i := 1; i <= 36; i++ {
		fmt.Fprintf(&b, "%d. Edit docs/step%d.md: change the wording of section %d to match the new API.\n", i, i, i)
	}
	b.WriteString("\nCheck: tests pass (plan ends).")
	return b.String()
}

// planLong answers a plan-mode prompt with the long plan, and the plan's
// run with "Done."
func planLong(_ int, req fakemodel.Request) fakemodel.Reply {
	if strings.HasPrefix(req.LastUser, "Plan mode is off") {
		return fakemodel.Reply{Text: "Done."}
	}
	return fakemodel.Reply{Text: longPlan()}
}

// readThePlan checks, with the question open, that the question sits
// under the transcript (the plan's end above it, the input below) and
// that the transcript scrolls behind it, so the plan's first line and its
// last can both be brought on screen; the question's help lists the
// scroll keys. The question is still holding its keys when this starts
// (scrolling is reading: it works at once).
func readThePlan(t *testing.T, s *session, ready func()) {
	t.Helper()
	bar := "── The plan is ready: run it?"
	frame := s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, bar) && strings.Contains(f, "(plan ends)")
	})
	if end, q, in := strings.Index(frame, "(plan ends)"), strings.Index(frame, bar), strings.LastIndex(frame, "›"); end > q || q > in {
		t.Errorf("the question is not a bar between the plan and the input:\n%s", frame)
	}
	if strings.Contains(frame, "(plan starts)") {
		t.Fatalf("the plan fits the screen; the test needs a longer one:\n%s", frame)
	}
	for _, k := range []string{"pgup/pgdn", "home/end read the plan", "enter run it", "esc keep planning"} {
		if !strings.Contains(frame, k) {
			t.Errorf("the question does not show %q:\n%s", k, frame)
		}
	}
	// pgup, past the top: the first line shows, at the top, and stays.
	for range 12 {
		s.tm.Send(tea.KeyMsg{Type: tea.KeyPgUp}) // the harness names no pgup
	}
	s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, bar) && strings.Contains(f, "(plan starts)") && hasLine(f, "you")
	})
	s.keys("end")
	s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, bar) && strings.Contains(f, "(plan ends)") && !strings.Contains(f, "(plan starts)")
	})
	s.keys("home")
	s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, bar) && strings.Contains(f, "(plan starts)") && !strings.Contains(f, "(plan ends)")
	})
	// ↓ a line at a time, and pgdn, back to the end.
	s.keys("down")
	s.keys(slices.Repeat([]string{"pgdown"}, 12)...)
	s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "(plan ends)") })
	ready()
	s.keys("?")
	s.waitScreen("Keys · The plan is ready: run it?", "enter", "run it", "esc", "keep planning",
		"↑", "↓", "pgup", "pgdn", "home", "end", "half a screen")
	s.keys("esc")
	s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, bar) && !strings.Contains(f, "Keys ·") })
}

// TestPlanQuestionKeepsThePlanReadable (issue 24, item 12): at 80×24 and
// 120×40, a plan taller than the screen can be read whole while the
// question to run it is open: the question is a bar under the transcript,
// not over it; ↑/↓, pgup/pgdn and home/end scroll the transcript behind
// it (also while it still holds its keys); ? lists those keys; and enter
// still runs the plan.
func TestPlanQuestionKeepsThePlanReadable(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size[0], size[1], planLong, true)
			r.chat()
			r.command("/plan", "plan mode on")
			r.say("plan the docs")
			r.waitScreen("The plan is ready: run it?", "keys ignored until you stop typing")
			readThePlan(t, r.session, func() {
				r.wait(common.QuietPeriod)
				r.waitScreen("▶ ready")
			})
			r.keys("enter")
			r.waitFor("Done.")
			reqs := r.fake.Requests()
			run := reqs[len(reqs)-1]
			if !strings.HasPrefix(run.LastUser, "Plan mode is off") || !strings.Contains(run.LastUser, "(plan starts)") || !strings.Contains(run.LastUser, "(plan ends)") {
				t.Errorf("enter sent %q", run.LastUser)
			}
			r.sc.WaitFrame(func(f string) bool {
				return !strings.Contains(f, "The plan is ready") && !strings.Contains(lastLine(f), "plan mode ·")
			})
			r.final()
		})
	}
}

// TestPiPlanQuestionKeepsThePlanReadable: the same on the pi engine (the
// fake pi), at 80×24.
func TestPiPlanQuestionKeepsThePlanReadable(t *testing.T) {
	t.Parallel()
	p := newPiKitRig(t, 80, 24, "pi", fakepi.Script{Replies: []fakepi.Reply{{Text: longPlan()}, {Text: "Done."}}})
	p.chat(true)
	r := &kitRig{session: p.session, m: p.m}
	r.command("/plan", "plan mode on")
	r.say("plan the docs")
	readThePlan(t, r.session, func() { r.waitScreen("▶ ready") })
	r.keys("enter")
	r.waitFor("Done.")
	prompts := p.logLines("prompt ")
	if len(prompts) != 2 || !strings.HasPrefix(prompts[1], "prompt Plan mode is off") {
		t.Errorf("the fake pi was sent %q", prompts)
	}
	r.final()
}

// hasLine reports whether a line of frame reads line, spaces aside.
func hasLine(frame, line string) bool {
	for _, l := range strings.Split(frame, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

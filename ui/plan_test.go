package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
	"github.com/pi-tui/pi-tui/internal/realpi"
	"github.com/pi-tui/pi-tui/ui/common"
)

// planScript plans in plan mode (trying a write first, which plan mode
// refuses) and carries the plan out once it is sent to be run: the write
// again, which then asks for approval as the permission mode says.
func planScript(_ int, req fakemodel.Request) fakemodel.Reply {
	write := fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "bye\n"}}}}
	running := strings.Contains(req.LastUser, "carry out this plan")
	switch {
	case req.LastToolResult == "":
		return write
	case running:
		return fakemodel.Reply{Text: "Done: " + req.LastToolResult}
	case strings.Contains(req.LastToolResult, "Refused: plan mode is on"):
		return fakemodel.Reply{Text: "Plan:\n1. Change notes.txt to say bye (" + req.LastUser + ")."}
	}
	return fakemodel.Reply{Text: "unexpected: " + req.LastToolResult}
}

// TestPlanModeInTheChat at 80×24: /plan puts the session in plan mode and
// the status bar says so; the turn's write is refused and the plan ends
// with a question, which takes no key the user was typing (text goes on
// to the input, enter is ignored) until the keyboard rests; esc keeps
// planning; enter leaves plan mode and sends the plan, which the agent
// then carries out under the permission mode (ask: the write asks).
func TestPlanModeInTheChat(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, planScript, true)
	r.chat()
	r.command("/plan", "plan mode on")
	r.sc.WaitFrame(func(f string) bool { return strings.Contains(lastLine(f), "plan mode ·") })

	r.say("make the notes say bye")
	r.waitFor("The plan is ready: run it?", "keys ignored until you stop typing", "enter run it", "esc keep planning")
	r.waitScreen("1. Change notes.txt to say bye (make the notes say bye).")
	if got := r.read("notes.txt"); got != "hello\n" {
		t.Fatalf("plan mode let the write happen: notes.txt = %q", got)
	}
	reqs := r.fake.Requests()
	if got := offered(reqs[0]); !slices.Equal(got, []string{"read", "ls", "grep", "find"}) {
		t.Errorf("plan mode offered %v", got)
	}
	if !strings.Contains(reqs[0].System, "# Plan mode") {
		t.Errorf("no plan section in the system prompt")
	}
	// Typing as the question appears: the text goes to the input, enter
	// answers nothing.
	r.keys("abc")
	r.waitScreen("The plan is ready: run it?", "› abc")
	r.keys("enter")
	r.waitScreen("The plan is ready: run it?", "1 key ignored")
	r.settle()
	r.keys("esc")
	r.sc.WaitFrame(func(f string) bool {
		return !strings.Contains(f, "The plan is ready") && strings.Contains(lastLine(f), "plan mode ·") && strings.Contains(f, "› abc")
	})
	if n := len(r.fake.Requests()); n != 2 {
		t.Fatalf("keep planning sent something: %d requests", n)
	}

	// Planning again, and this time run it.
	r.keys("ctrl+u")
	r.say("again, please")
	// Frames, not the output: the question is drawn where it was before,
	// and the terminal may get no frame without it in between.
	r.waitScreen("The plan is ready: run it?", "say bye (again, please).", "keys ignored until you stop typing")
	r.wait(common.QuietPeriod)
	r.waitScreen("The plan is ready: run it?", "▶ ready")
	r.keys("enter")
	r.waitFor("Allow write?")
	r.sc.WaitFrame(func(f string) bool { return !strings.Contains(lastLine(f), "plan mode ·") })
	reqs = r.fake.Requests()
	run := reqs[len(reqs)-1]
	if !strings.HasPrefix(run.LastUser, "Plan mode is off: carry out this plan") || !strings.Contains(run.LastUser, "1. Change notes.txt to say bye (again, please).") {
		t.Errorf("the plan was sent as %q", run.LastUser)
	}
	if got := offered(run); !slices.Contains(got, "write") || strings.Contains(run.System, "# Plan mode") {
		t.Errorf("running the plan offered %v (plan section kept: %v)", got, strings.Contains(run.System, "# Plan mode"))
	}
	r.settle()
	r.keys("y")
	r.waitFor("Done: Wrote")
	if got := r.read("notes.txt"); got != "bye\n" {
		t.Errorf("the plan was not carried out: notes.txt = %q", got)
	}
	r.final()
}

// TestPlanModeFollowsInAnotherProgram: a session open in two programs
// (two SSH clients): /plan in one puts the other's status bar in plan
// mode too, and /plan again takes both out; only the program whose turn
// it was asks to run the plan.
func TestPlanModeFollowsInAnotherProgram(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 80, 24, planScript, true)
	r.chat()
	r.say("first, without plan mode")
	r.waitFor("Allow write?")
	r.settle()
	r.keys("n")
	r.waitFor("unexpected")

	two, _ := r.second(80, 24)
	two.openFirstSession("first, without plan mode")
	two.waitFor("unexpected")
	r.command("/plan", "plan mode on")
	two.sc.WaitFrame(func(f string) bool { return strings.Contains(lastLine(f), "plan mode ·") })

	r.say("make the notes say bye")
	r.waitFor("The plan is ready: run it?")
	// The other program has seen the turn end (its runtime is idle again,
	// after the plan): it puts no question.
	f := two.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, "say bye (make the notes say bye).") && strings.Contains(f, "runtime idle")
	})
	if strings.Contains(f, "The plan is ready") {
		t.Errorf("the other program asked to run a plan it did not ask for:\n%s", f)
	}
	r.wait(common.QuietPeriod)
	r.waitScreen("▶ ready")
	r.keys("esc")
	r.command("/plan", "plan mode off")
	two.sc.WaitFrame(func(f string) bool { return !strings.Contains(lastLine(f), "plan mode ·") })
}

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

// The command the model runs in plan mode, and what its refused call's
// line must say: the first line of plan mode's refusal, whole.
const refusedCommand = "echo oops >&2; exit 3"

var refusedWhy, _, _ = strings.Cut(entries.PlanRefusal("bash"), "\n")

// planBash is a model that, in plan mode, runs a command (which plan mode
// refuses) and then answers with a plan.
func planBash(_ int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": refusedCommand}}}}
	}
	return fakemodel.Reply{Text: "Plan: 1. Fix the script."}
}

// refusedOnItsLine waits until the refused call's line says why, whole
// (wrapped), with nothing of the refusal under it as output: the command
// never ran.
func refusedOnItsLine(t *testing.T, s *session) {
	t.Helper()
	frame := callSays(t, s, "✗ bash "+refusedCommand+" ·", refusedWhy)
	if strings.Contains(frame, "│ Refused") || strings.Contains(frame, "│ Go on planning") || strings.Contains(frame, "rea…") {
		t.Errorf("the refusal is drawn as the command's output:\n%s", frame)
	}
}

// refusedInTheTree opens /tree and waits for the refused call's row to say
// the refusal's first line (the row is cut at the screen's edge), not its
// last.
func refusedInTheTree(t *testing.T, r *kitRig) {
	t.Helper()
	r.command("/tree", "Tree · every branch")
	frame := r.sc.WaitFrame(func(f string) bool {
		return strings.Contains(f, "[bash: "+refusedCommand+"] ✗ Refused: plan mode is on")
	})
	if strings.Contains(frame, "✗ Go on planning") {
		t.Errorf("the tree shows the refusal's last line:\n%s", frame)
	}
	r.keys("esc")
	r.waitScreen("Plan: 1. Fix the script.")
}

// TestPlanRefusedCommandSaysWhy: on the built-in engine, a bash call plan
// mode refuses shows the refusal's first line on its own line, wrapped,
// never cut, and no output under it (it never ran); the same once the
// session is read back from its file, and /tree names it by the reason.
// At 80×24 and 120×40.
func TestPlanRefusedCommandSaysWhy(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size[0], size[1], planBash, true)
			r.chat()
			r.command("/plan", "plan mode on")
			r.say("fix the script")
			r.waitFor("The plan is ready: run it?")
			refusedOnItsLine(t, r.session)
			r.settle()
			r.keys("esc")
			r.sessions()
			r.keys("enter")
			r.waitFor("Plan: 1. Fix the script.")
			refusedOnItsLine(t, r.session)
			refusedInTheTree(t, r)
			r.final()
		})
	}
}

// TestPiPlanRefusedCommandSaysWhy: the same on the pi engine (the fake pi,
// through the bridge, which blocks the call with plan mode's sentence).
func TestPiPlanRefusedCommandSaysWhy(t *testing.T) {
	t.Parallel()
	p := newPiKitRig(t, 80, 24, "pi", fakepi.Script{Replies: []fakepi.Reply{
		{Tools: []fakepi.Tool{{ID: "b1", Name: "bash", Args: map[string]any{"command": refusedCommand}}}},
		{Text: "Plan: 1. Fix the script."},
	}})
	p.chat(true)
	r := &kitRig{session: p.session, m: p.m}
	r.command("/plan", "plan mode on")
	r.say("fix the script")
	r.waitFor("The plan is ready: run it?")
	refusedOnItsLine(t, r.session)
	r.waitFor("▶ ready")
	r.keys("esc")
	r.sessions()
	r.keys("enter")
	r.waitFor("Plan: 1. Fix the script.")
	refusedOnItsLine(t, r.session)
	refusedInTheTree(t, r)
	r.final()
}

// TestRealPiPlanRefusedCommandSaysWhy: the same on the real pi 1.6
// (PI_TUI_PI), which stores the bridge's reason as the call's result.
func TestRealPiPlanRefusedCommandSaysWhy(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	r := newRealPiKitRig(t, 80, 24, argv[0], planBash)
	writeAt(t, filepath.Join(r.home, "proj", "notes.txt"), "hello\n")
	r.chat()
	r.command("/plan", "plan mode on")
	r.say("fix the script")
	r.waitFor("The plan is ready: run it?")
	refusedOnItsLine(t, r.session)
	r.settle()
	r.keys("esc")
	r.sessions()
	r.keys("enter")
	r.waitFor("Plan: 1. Fix the script.")
	refusedOnItsLine(t, r.session)
	refusedInTheTree(t, r)
	r.final()
}

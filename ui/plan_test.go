package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
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

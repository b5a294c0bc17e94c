package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

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

package toolpolicy

import (
	"slices"
)

// Plan mode (docs/adr/0058-plan-mode.md): a session mode in which the
// agent may only look, and is told to answer with a plan. The built-in
// engine and the pi bridge (core/bridge) both decide here, so a call is
// offered, refused and explained the same way whichever engine runs it.

// PlanTools are the built-in tools plan mode keeps: those that only read.
var PlanTools = []string{"read", "grep", "find", "ls"}

// PlanAllows says whether plan mode lets a call of tool run. readOnly is
// what the tool's author says of it: pi's annotations.readOnlyHint, which
// an extension's tool or an MCP server's sets to mark a tool that does not
// change its environment. The mark is believed for those tools only: a
// tool named as one of pi-tui's (write, edit, bash, remember) runs in plan
// mode only if it is one of PlanTools, whatever it claims.
func PlanAllows(tool string, readOnly bool) bool {
	if slices.Contains(PlanTools, tool) {
		return true
	}
	if _, builtin := specOf(tool); builtin {
		return false
	}
	return readOnly
}

// PlanFilter returns the tools of tools that plan mode keeps, in order
// (the built-in engine's tools carry no read-only mark).
func PlanFilter(tools []string) []string {
	var out []string
	for _, t := range tools {
		if PlanAllows(t, false) {
			out = append(out, t)
		}
	}
	return out
}

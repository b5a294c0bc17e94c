package entries

import (
	"fmt"
	"strings"
)

// The words of plan mode (docs/adr/0058-plan-mode.md): the section the
// system prompt ends with while it is on, the result a refused call
// reads, and the message that runs a plan. Either engine says them, and
// /context and the transcript show them.

// PlanPrompt is the section added at the end of the system prompt while
// plan mode is on: what the model may do, and what it is to answer with.
// A system-prompt section rather than a preamble in the user's message:
// the message stays what the user typed (in the transcript, in /tree, in
// pi's own view of the file), and the section goes as soon as plan mode
// does.
const PlanPrompt = `# Plan mode

The user has turned on plan mode: this turn is for understanding the task and planning it, not for doing it.
- Only the tools that read run now: read, grep, find and ls (and, in pi, tools marked read-only). write, edit, bash, remember and every other tool are refused in plan mode: do not call them.
- Look at what you need: the files the change touches, their tests, the project's instructions.
- Then answer with the plan: one line saying what will be achieved, then numbered steps, each naming the files it changes and how, then how the result will be checked (the commands to run).
- If the request is unclear, ask instead of guessing.
- End with the plan itself. The user is then asked whether to run it: if they do, plan mode ends and you carry it out with your usual tools.`

// WithPlan returns system with the plan-mode section added at its end.
func WithPlan(system string) string {
	if strings.TrimSpace(system) == "" {
		return PlanPrompt + "\n"
	}
	return strings.TrimRight(system, "\n") + "\n\n" + PlanPrompt + "\n"
}

// PlanRefusal is the result the model reads for a call of tool that plan
// mode refused: a sentence, first, that says so (the transcript shows a
// failed call's first line), then what to do instead.
func PlanRefusal(tool string) string {
	return fmt.Sprintf("Refused: plan mode is on, and only tools that read run while planning (read, grep, find, ls, and tools marked read-only), so this %s call did not run and nothing changed.\n"+
		"Go on planning without it: the user runs the plan once plan mode is off.", tool)
}

// PlanRunMessage is the message that runs a plan: sent when the user
// answers "run it", after plan mode was turned off, so the agent carries
// the plan out with its usual tools under the usual permission mode.
func PlanRunMessage(plan string) string {
	return "Plan mode is off: carry out this plan now, step by step, with your usual tools. Check the result as the plan says, and say what you changed and what you verified.\n\n" +
		strings.TrimSpace(plan)
}

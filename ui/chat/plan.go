package chat

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Plan mode in the chat (docs/adr/0058-plan-mode.md): /plan turns it on
// or off for the open session (the runtime manager holds it, so every
// program showing the session says the same); /plan TEXT turns it on and
// sends TEXT. When a turn of this program's ends in plan mode with an
// answer, the plan, a question asks whether to run it: enter leaves plan
// mode and sends the plan as the next message, to be carried out under
// the usual permission mode; esc keeps planning. The question comes when
// the turn ends, whatever the user is doing, so it takes no key until
// the keyboard has rested (guarded); it is a bar under the transcript,
// which scrolls while it is open, so the whole plan can be read before it
// runs (planask.go).

// Plan reports whether the open session is in plan mode (the status bar
// says so).
func (m *Model) Plan() bool { return m.sid != "" && m.plan }

// Notices of /plan.
const (
	noticePlanOn  = "plan mode on: the agent only reads, then answers with a plan"
	noticePlanOff = "plan mode off: the agent has its usual tools again"
)

// planCommand runs /plan: with no text it turns plan mode on or off; with
// text it turns plan mode on and sends the text.
func (m *Model) planCommand(arg string) tea.Cmd {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		on := !m.plan
		m.setPlan(on)
		if on {
			return common.Notice("%s", noticePlanOn)
		}
		return common.Notice("%s", noticePlanOff)
	}
	m.setPlan(true)
	return tea.Batch(common.Notice("%s", noticePlanOn), m.sendWithFiles(arg))
}

// setPlan turns plan mode on or off for the open session. The runtime
// manager publishes the change (every program showing the session hears
// it); this program says it at once.
func (m *Model) setPlan(on bool) {
	m.d.Plans.Set(m.sid, on)
	m.plan = on
}

// planChanged follows a change made here or in another program.
func (m *Model) planChanged(e events.PlanChanged) { m.plan = e.On }

// planEnded puts the plan question when a turn of this program's ends in
// plan mode with an answer: not after an abort or a failure, and not when
// messages wait to be sent (they continue the planning).
func (m *Model) planEnded(e events.AgentEnded) tea.Cmd {
	plan := strings.TrimSpace(e.Text)
	if m.turn != turnPrompt || !m.plan || plan == "" || e.Error != "" || e.StopReason == provider.StopAborted || len(m.queue) > 0 {
		return nil
	}
	sid := m.sid
	return m.askPlan(func() tea.Cmd { return m.runPlan(sid, plan) })
}

// runPlan leaves plan mode and sends the plan as a message asking the
// agent to carry it out (queued if a turn has started meanwhile).
func (m *Model) runPlan(sid, plan string) tea.Cmd {
	if sid != m.sid {
		return nil // the session was left meanwhile
	}
	m.setPlan(false)
	text := entries.PlanRunMessage(plan)
	if m.inTurn() {
		m.queue = append(m.queue, text)
		return common.Notice("%s", noticeQueued)
	}
	return tea.Batch(common.Notice("%s", noticePlanOff), m.send(text))
}

package chat

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/transcript"
)

// Plan mode in the chat (docs/adr/0058-plan-mode.md): /plan turns it on
// or off for the open session (the runtimes hold it, Plans, so every
// program showing the session says the same); /plan TEXT turns it on and
// sends TEXT. When a turn of this program's ends in plan mode with an
// answer, the plan, a question asks whether to run it: enter leaves plan
// mode and sends the plan as the next message, to be carried out under
// the usual permission mode; esc keeps planning. The question comes when
// the turn ends, whatever the user is doing, so it takes no key until
// the keyboard has rested (guarded); it is a bar under the transcript,
// which scrolls while it is open, so the whole plan can be read before it
// runs (planask.go).

// planner is the chat's part for plan mode: whether the open session is
// in it, and the question that runs a plan. Sending stays the chat's: it
// hands the planner what runs a plan.
type planner struct {
	*scope
	plans Plans
	// tr is the transcript the question scrolls; trHeight its height.
	tr       *transcript.Model
	trHeight func() int
	on       bool     // the open session is in plan mode
	ask      *planAsk // the open question to run the plan (planask.go)
}

// Plan reports whether the open session is in plan mode (the status bar
// says so).
func (m *Model) Plan() bool { return m.sid != "" && m.plan.on }

// Notices of /plan.
const (
	noticePlanOn  = "plan mode on: the agent only reads, then answers with a plan"
	noticePlanOff = "plan mode off: the agent has its usual tools again"
)

// planCommand runs /plan: with no text it turns plan mode on or off; with
// text it turns plan mode on and sends the text.
func (m *Model) planCommand(arg string) tea.Cmd {
	say, text := m.plan.command(arg)
	if text == "" {
		return say
	}
	return tea.Batch(say, m.sendWithFiles(text))
}

// command is /plan's part here: with no text it turns plan mode on or off;
// with text it turns it on and returns the text for the chat to send.
func (p *planner) command(arg string) (say tea.Cmd, send string) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		on := !p.on
		p.set(on)
		if on {
			return common.Notice("%s", noticePlanOn), ""
		}
		return common.Notice("%s", noticePlanOff), ""
	}
	p.set(true)
	return common.Notice("%s", noticePlanOn), arg
}

// load reads whether the session just opened is in plan mode.
func (p *planner) load() { p.on = p.plans != nil && p.plans.On(p.sid) }

// left forgets the session the chat left: its question goes unanswered.
func (p *planner) left() {
	p.closeAsk()
	p.on = false
}

// set turns plan mode on or off for the open session. The runtimes
// publish the change (every program showing the session hears it); this
// program says it at once.
func (p *planner) set(on bool) {
	p.plans.Set(p.sid, on)
	p.on = on
}

// changed follows a change made here or in another program.
func (p *planner) changed(e events.PlanChanged) { p.on = e.On }

// ended puts the plan question when a turn of this program's (ours) ends
// in plan mode with an answer: not after an abort or a failure, and not
// when messages wait to be sent (queued: they continue the planning). run
// runs the plan of the session it was made in.
func (p *planner) ended(e events.AgentEnded, ours, queued bool, run func(sid, plan string) tea.Cmd) tea.Cmd {
	plan := strings.TrimSpace(e.Text)
	if !ours || !p.on || plan == "" || e.Error != "" || e.StopReason == provider.StopAborted || queued {
		return nil
	}
	sid := p.sid
	return p.askPlan(func() tea.Cmd { return run(sid, plan) })
}

// runPlan leaves plan mode and sends the plan as a message asking the
// agent to carry it out (queued if a turn has started meanwhile).
func (m *Model) runPlan(sid, plan string) tea.Cmd {
	if sid != m.sid {
		return nil // the session was left meanwhile
	}
	m.plan.set(false)
	text := entries.PlanRunMessage(plan)
	if m.inTurn() {
		m.queue = append(m.queue, text)
		return common.Notice("%s", noticeQueued)
	}
	return tea.Batch(common.Notice("%s", noticePlanOff), m.send(text))
}

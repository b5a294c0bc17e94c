package runtimes

import (
	"github.com/pi-tui/pi-tui/core/events"
)

// Plan mode (docs/adr/0058-plan-mode.md) is a session's mode, held here
// for the manager's life: every program of the process showing the
// session sees the same, and a session's runtime reads it before each
// model call and each tool call (agent.Config.Plan, bridge.Deps.Plan), so
// turning it on or off needs no new runtime. It is not written anywhere: a
// session reopened after pi-tui restarts is out of plan mode.

// SetPlan turns plan mode on or off for a session and reports whether that
// changed it; a change is published (events.PlanChanged). It may be called
// while a turn runs: the turn's next model call and tool call follow it.
func (m *Manager) SetPlan(sessionID string, on bool) bool {
	var was bool
	if on {
		_, was = m.plans.Swap(sessionID, true)
	} else {
		_, was = m.plans.LoadAndDelete(sessionID)
	}
	if was == on {
		return false
	}
	m.opts.Host.Events.Publish(events.PlanChanged{SessionID: sessionID, On: on})
	return true
}

// Plan reports whether a session is in plan mode. It takes no lock of the
// manager's, so an engine may ask it at any time.
func (m *Manager) Plan(sessionID string) bool {
	_, on := m.plans.Load(sessionID)
	return on
}

// planOf is what a session's runtime asks.
func (m *Manager) planOf(sessionID string) func() bool {
	return func() bool { return m.Plan(sessionID) }
}

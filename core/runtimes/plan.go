package runtimes

import (
	"sync"

	"github.com/pi-tui/pi-tui/core/events"
)

// Plan mode (docs/adr/0058-plan-mode.md) is a session's mode, held here
// for the manager's life: every program of the process showing the
// session sees the same, and a session's runtime reads it before each
// model call and each tool call (engine.Launch.Plan), so
// turning it on or off needs no new runtime. It is not written anywhere: a
// session reopened after pi-tui restarts is out of plan mode.

// Plans holds which sessions are in plan mode. The manager makes one
// (Manager.Plans) and its runtimes read it; the programs turn the mode on
// and off through it. It needs nothing of the manager but the broker it
// publishes a change on (docs/adr/0090-interfaces-where-consumed.md).
type Plans struct {
	on     sync.Map // session id → true
	events *events.Broker
}

func newPlans(b *events.Broker) *Plans { return &Plans{events: b} }

// Set turns plan mode on or off for a session and reports whether that
// changed it; a change is published (events.PlanChanged). It may be called
// while a turn runs: the turn's next model call and tool call follow it.
func (p *Plans) Set(sessionID string, on bool) bool {
	var was bool
	if on {
		_, was = p.on.Swap(sessionID, true)
	} else {
		_, was = p.on.LoadAndDelete(sessionID)
	}
	if was == on {
		return false
	}
	p.events.Publish(events.PlanChanged{SessionID: sessionID, On: on})
	return true
}

// On reports whether a session is in plan mode. It takes no lock of the
// manager's, so an engine may ask it at any time.
func (p *Plans) On(sessionID string) bool {
	_, on := p.on.Load(sessionID)
	return on
}

// Plans is the sessions' plan mode, for the programs to turn on and off.
func (m *Manager) Plans() *Plans { return m.plans }

// planOf is what a session's runtime asks.
func (m *Manager) planOf(sessionID string) func() bool {
	return func() bool { return m.plans.On(sessionID) }
}

package runtimes

import (
	"time"
)

// Idle timers: a runtime unused for its idle TTL is retired.

// touchLocked marks a runtime used now and restarts its idle timer.
func (m *Manager) touchLocked(rt *Runtime) {
	rt.lastUsed = m.opts.Now()
	ttl := rt.ttl
	if ttl <= 0 {
		ttl = 15 * time.Minute
	}
	if rt.idle != nil {
		rt.idle.Stop()
	}
	rt.idle = time.AfterFunc(ttl, func() { m.expire(rt, ttl) })
}

func (m *Manager) expire(rt *Runtime, ttl time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rt.dead() {
		m.retireLocked(rt, ReasonCrashed)
		return
	}
	if rt.busy() || rt.reserved {
		rt.idle = time.AfterFunc(ttl, func() { m.expire(rt, ttl) })
		return
	}
	m.retireLocked(rt, ReasonIdleTimeout)
}

// touch ends a prompt's reservation and restarts the idle timer; a
// runtime whose pi died during the prompt is retired (ReasonCrashed) and
// the next prompt launches a new one.
func (m *Manager) touch(rt *Runtime) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rt.reserved = false
	if m.runtimes[rt.Session.ID()] == rt {
		if rt.dead() {
			m.retireLocked(rt, ReasonCrashed)
			return
		}
		m.touchLocked(rt)
	}
}

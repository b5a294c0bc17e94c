package runtimes

import (
	"context"
	"errors"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Lifecycle: launching, reusing and retiring runtimes, each announced on
// the broker with its reason.

// Prepare re-registers a session's binding before a prompt or compaction
// and returns the runtime to use: the idle one when its fingerprint is
// unchanged (and its pi alive), else a new one (the old retired with the
// reason). A busy runtime is never swapped: ErrBusy.
func (m *Manager) Prepare(ctx context.Context, sessionID, modelSpec string) (*Runtime, error) {
	return m.prepare(ctx, sessionID, modelSpec, true)
}

// prepare is Prepare; reserve false is a launch without a prompt
// (Prewarm, Call): the runtime is not reserved and a reuse is silent.
func (m *Manager) prepare(ctx context.Context, sessionID, modelSpec string, reserve bool) (*Runtime, error) {
	for {
		if err := m.awaitLaunch(ctx, sessionID); err != nil {
			return nil, err
		}
		rt, again, err := m.prepareOnce(ctx, sessionID, modelSpec, reserve)
		if !again {
			return rt, err
		}
	}
}

// prepareOnce is one attempt of prepare; again says another launch for
// the session began meanwhile (wait for it and try again).
func (m *Manager) prepareOnce(ctx context.Context, sessionID, modelSpec string, reserve bool) (_ *Runtime, again bool, _ error) {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	var sess *sessions.Session
	outOfStep := false // rt's pi no longer continues where its file does
	if rt != nil {
		if rt.busy() {
			return nil, false, engine.ErrBusy
		}
		sess = rt.Session
		outOfStep = !piInStep(ctx, rt)
	} else {
		s, err := m.sessions.Open(ctx, sessionID)
		if err != nil {
			return nil, false, err
		}
		sess = s
	}
	if modelSpec == "" {
		// A run that names no model (prompt --session, rpc, a reopened
		// view) keeps the model and thinking level the session chose last.
		modelSpec = provider.WithThinking(sess.Chosen())
	}
	// A runtime may work in the session's worktree: what records the
	// binding besides the session file is brought in line here, the one
	// write before a launch (build only reads).
	if _, _, err := m.worktrees.Reconcile(ctx, sess); err != nil {
		return nil, false, err
	}
	b, err := m.build(ctx, sess, modelSpec)
	if err != nil {
		return nil, false, err
	}
	fp := b.spec.Fingerprint(m.seed)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, false, errors.New("the runtime manager is closed")
	}
	if m.launching[sessionID] != nil {
		m.mu.Unlock()
		return nil, true, nil
	}
	reason := ReasonNew
	if last, ok := m.last[sessionID].(events.RuntimeRetired); ok && last.Reason != ReasonShutdown {
		// Retired proactively (instructions or memory changed while idle,
		// pi crashed): the launch says why, as a swap at this prompt would.
		reason = last.Reason
	}
	if cur := m.runtimes[sessionID]; cur != nil {
		if cur.busy() {
			m.mu.Unlock()
			return nil, false, engine.ErrBusy
		}
		dead := cur.dead()
		// A reserved runtime's own prepare checked it; its prompt is
		// starting (pi may be writing its first entry now).
		stale := cur == rt && outOfStep && !cur.reserved
		if cur.fp == fp && !dead && !stale {
			cur.ttl = b.ttl
			m.touchLocked(cur)
			if reserve {
				cur.reserved = true // a prompt is about to start: no retiring it
				why := "unchanged"
				if cur.prewarmed {
					why, cur.prewarmed = "prewarmed", false
				}
				m.note(events.RuntimeReused{SessionID: sessionID, Reason: why, Model: cur.Spec.Model})
			}
			m.mu.Unlock()
			return cur, false, nil
		}
		if r, ok := cur.Engine.(engine.Retuner); ok && !dead && !stale && m.inPlace(cur.Spec, b.spec) {
			// Only the model or thinking level moved, and the engine takes
			// them in place: no new process (retune.go).
			switch kept, err := m.retune(ctx, cur, r, b, fp, reserve); {
			case err != nil:
				return nil, false, err
			case kept:
				return cur, false, nil
			}
			return nil, true, nil
		}
		switch {
		case dead:
			reason = ReasonCrashed
		case cur.fp == fp:
			reason = ReasonOtherWriter
		default:
			reason = why(cur.Spec, b.spec)
		}
		m.retireLocked(cur, reason)
		// Launch with the history from the store, not the old process memory.
		s, err := m.sessions.Open(ctx, sessionID)
		if err != nil {
			m.mu.Unlock()
			return nil, false, err
		}
		sess = s
	}
	if !b.engine.Caps.Process {
		// In pi-tui's own process: launched at once, under the lock.
		rt, err = m.launchLocked(ctx, b, sess, fp)
		if err != nil {
			m.mu.Unlock()
			return nil, false, err
		}
		m.launchedLocked(rt, reason, reserve)
		m.mu.Unlock()
		return rt, false, nil
	}
	if err := m.makeRoomLocked(b.maxPi); err != nil {
		m.mu.Unlock()
		return nil, false, err
	}
	done := make(chan struct{})
	m.launching[sessionID] = done
	m.mu.Unlock()
	rt, err = m.launchProcess(ctx, b, sess, fp)
	m.mu.Lock()
	delete(m.launching, sessionID)
	close(done)
	switch {
	case errors.Is(err, engine.ErrVersionChanged) && b.found.Cached:
		// The program changed under its path: asked again, at most once
		// (an asked version is never Cached).
		m.mu.Unlock()
		return nil, true, nil
	case err != nil:
		m.mu.Unlock()
		return nil, false, err
	case m.closed:
		m.mu.close(rt.Engine)
		m.mu.Unlock()
		return nil, false, errors.New("the runtime manager is closed")
	}
	m.installLocked(rt)
	m.launchedLocked(rt, reason, reserve)
	m.mu.Unlock()
	return rt, false, nil
}

// launchedLocked marks a new runtime reserved (a prompt) or prewarmed,
// and announces it. A prewarmed one also walks its root for the
// checkpoints while no prompt runs; one a prompt launched walks only
// when a call needs it (ADR 0087).
func (m *Manager) launchedLocked(rt *Runtime, reason string, reserve bool) {
	rt.reserved, rt.prewarmed = reserve, !reserve
	if !reserve {
		m.prewarmLocked(rt)
	}
	info := rt.Engine.Info()
	res, said := launchResources(rt)
	m.note(events.RuntimeLaunched{SessionID: rt.Session.ID(), Reason: reason, Model: rt.Spec.Model, Engine: info.Name, EngineVersion: info.Version, Resources: res})
	if said.Text != "" {
		m.mu.send(said)
	}
	if rt.notice != "" {
		// Queued as note queues, but not the session's last runtime event.
		m.mu.send(events.Notice{SessionID: rt.Session.ID(), Level: "warning", Source: "pi-tui", Text: rt.notice})
	}
}

// launchLocked starts an engine in pi-tui's own process (the built-in
// one) through its descriptor, at once and under the lock, and makes it
// the session's runtime.
func (m *Manager) launchLocked(ctx context.Context, b built, sess *sessions.Session, fp string) (*Runtime, error) {
	rt := &Runtime{Spec: b.spec, Session: sess, fp: fp, ttl: b.ttl, notice: b.notice}
	eng, err := b.engine.Start(ctx, m.launchOf(b, sess, rt))
	if err != nil {
		return nil, err
	}
	rt.Engine = eng
	m.installLocked(rt)
	return rt, nil
}

// installLocked makes rt the session's runtime and watches what it was
// built from.
func (m *Manager) installLocked(rt *Runtime) {
	m.runtimes[rt.Session.ID()] = rt
	m.watchDirsLocked(rt, 1)
	m.touchLocked(rt)
}

func (m *Manager) retireLocked(rt *Runtime, reason string) {
	id := rt.Session.ID()
	if m.runtimes[id] != rt {
		return
	}
	delete(m.runtimes, id)
	if rt.idle != nil {
		rt.idle.Stop()
	}
	rt.stopPrewarmLocked()
	m.watchDirsLocked(rt, -1)
	m.mu.close(rt.Engine)
	m.note(events.RuntimeRetired{SessionID: id, Reason: reason, Model: rt.Spec.Model})
}

// Retire retires a session's runtime if it is idle (model switch, session
// switch, shutdown). It reports whether one was retired.
func (m *Manager) Retire(sessionID, reason string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	rt := m.runtimes[sessionID]
	if rt == nil || rt.busy() || rt.reserved {
		return false
	}
	m.retireLocked(rt, reason)
	return true
}

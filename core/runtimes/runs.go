package runtimes

import (
	"context"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
)

// What front ends run on a session's runtime: prompts, compactions,
// steering and follow-ups, aborts, and its state.

// Prompt prepares the session's runtime and runs text on it. It ends
// with one agent_end, failures included (ends.go).
func (m *Manager) Prompt(ctx context.Context, sessionID, modelSpec, text string) (res engine.Result, err error) {
	m.running.Add(1)
	defer m.running.Done()
	defer m.ended(sessionID, promptEnd, m.ends.count(sessionID, promptEnd).Load(), &err, nil)
	rt, err := m.Prepare(ctx, sessionID, modelSpec)
	if err != nil {
		return engine.Result{}, err
	}
	defer m.touch(rt)
	// The session's count and date moved (or it was written for the
	// first time): lists showing it reload.
	defer m.opts.Host.Events.Publish(events.ProjectsChanged{ProjectID: rt.Session.ProjectID()})
	mark := turnMark(rt)
	defer m.afterPiTurn(rt, mark)
	return rt.Engine.Prompt(ctx, text)
}

// Compact prepares the runtime and compacts its session. It ends with
// one compaction_end, failures included (ends.go).
func (m *Manager) Compact(ctx context.Context, sessionID, modelSpec, extra string) (summary string, err error) {
	m.running.Add(1)
	defer m.running.Done()
	defer m.ended(sessionID, compactEnd, m.ends.count(sessionID, compactEnd).Load(), &err, &summary)
	rt, err := m.Prepare(ctx, sessionID, modelSpec)
	if err != nil {
		return "", err
	}
	defer m.touch(rt)
	defer m.opts.Host.Events.Publish(events.ProjectsChanged{ProjectID: rt.Session.ProjectID()})
	mark := turnMark(rt)
	defer m.afterPiTurn(rt, mark)
	return rt.Engine.Compact(ctx, extra)
}

// Steer sends text to the session's running turn: it reaches the model
// before its next call. FollowUp sends text for when the turn would end.
// With no turn running they return engine.ErrIdle.
func (m *Manager) Steer(sessionID, text string) error {
	return m.toRunning(sessionID, func(e engine.Engine) error { return e.Steer(text) })
}

// FollowUp: see Steer.
func (m *Manager) FollowUp(sessionID, text string) error {
	return m.toRunning(sessionID, func(e engine.Engine) error { return e.FollowUp(text) })
}

func (m *Manager) toRunning(sessionID string, send func(engine.Engine) error) error {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt == nil {
		return engine.ErrIdle
	}
	return send(rt.Engine)
}

// Abort stops a session's running prompt.
func (m *Manager) Abort(sessionID string) bool {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt == nil || !rt.busy() {
		return false
	}
	rt.Engine.Abort()
	return true
}

// State is a session's runtime as get_state reports it.
type State struct {
	SessionID string
	Runtime   RunState // StateNone, StateIdle or StateWorking
	Model     string
	Thinking  string
	// Last is the latest launch, reuse or retirement (RuntimeLaunched,
	// RuntimeReused, RuntimeRetired); nil before the first.
	Last  events.Event
	Usage *provider.Usage
	Leaf  string
	Title string
	// Engine and EngineVersion are what the live runtime runs on ("pi"
	// 1.6.0, "builtin" ""; "" without a runtime): a view opened on a
	// runtime launched before says it, whatever Last is (a reuse carries
	// no engine).
	Engine, EngineVersion string
}

// State reports a session's runtime state.
func (m *Manager) State(sessionID string) State {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := State{SessionID: sessionID, Runtime: StateNone}
	st.Last = m.last[sessionID]
	if rt := m.runtimes[sessionID]; rt != nil {
		st.Runtime, st.Model, st.Thinking = StateIdle, rt.Spec.Model, rt.Spec.Thinking
		if rt.busy() {
			st.Runtime = StateWorking
		}
		total := rt.Engine.State().Usage
		st.Usage = &total
		st.Leaf, st.Title = rt.Session.Leaf(), rt.Session.Title()
		info := rt.Engine.Info()
		st.Engine, st.EngineVersion = info.Name, info.Version
	}
	return st
}

package runtimes

import (
	"context"
	"fmt"
)

// A session's live runtime, looked up in the manager's table: for the
// parts the manager makes (the pi catalogue, the session façade) and its
// own calls on a running engine.

// piRunOf returns the session's pi, launching its runtime first (as a
// view opening does, Prewarm) when none runs; the wait is bounded by ctx.
// A session on the built-in engine has no pi: an error says so.
func (m *Manager) piRunOf(ctx context.Context, sessionID string) (process, error) {
	rt, err := m.liveRuntime(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if rt.pi == nil {
		return nil, fmt.Errorf("session %s runs on the built-in engine, which has no pi catalogue", sessionID)
	}
	return rt.pi, nil
}

// liveRuntime returns the session's runtime, launching it first (as a view
// opening does, Prewarm) when none runs. A runtime busy with a prompt is
// returned as it is: pi answers its reading commands during a run.
func (m *Manager) liveRuntime(ctx context.Context, sessionID string) (*Runtime, error) {
	if err := m.awaitLaunch(ctx, sessionID); err != nil {
		return nil, err
	}
	rt := m.runtimeOf(sessionID)
	if rt == nil || rt.dead() {
		if err := m.Prewarm(ctx, sessionID); err != nil {
			return nil, err
		}
		if rt = m.runtimeOf(sessionID); rt == nil || rt.dead() {
			return nil, fmt.Errorf("session %s: its runtime ended as it was launched; try again", sessionID)
		}
	}
	return rt, nil
}

func (m *Manager) runtimeOf(sessionID string) *Runtime {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runtimes[sessionID]
}

// isLive reports whether run is still the session's runtime.
func (m *Manager) isLive(sessionID string, run process) bool {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	return rt != nil && rt.pi == run && !run.Dead()
}

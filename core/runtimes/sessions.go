package runtimes

import (
	"context"
	"errors"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// The session façade: the runtimes' sessions as the front ends open,
// branch, fork and delete them.

// ReasonSessionDeleted retires the runtime of a session being deleted.
const ReasonSessionDeleted = "session-deleted"

// DeleteSession removes a session's file after retiring its runtime. A
// busy session is not deleted (engine.ErrBusy): abort it first.
func (m *Manager) DeleteSession(ctx context.Context, id string) error {
	// A pi starting for the session (Prewarm) is retired, not left behind.
	if err := m.awaitLaunch(ctx, id); err != nil {
		return err
	}
	m.mu.Lock()
	if rt := m.runtimes[id]; rt != nil {
		if rt.busy() {
			m.mu.Unlock()
			return engine.ErrBusy
		}
		m.retireLocked(rt, ReasonSessionDeleted)
		defer rt.Session.Close()
	}
	m.mu.Unlock()
	m.sent.Delete(id)
	return m.sessions.Delete(ctx, id)
}

// ForkSession starts a new session from the branch of session id up to the
// entry upTo ("" for an empty one) and returns it.
func (m *Manager) ForkSession(ctx context.Context, id, upTo string) (*sessions.Session, error) {
	return m.sessions.Fork(ctx, id, upTo)
}

// Sessions returns the session manager the runtimes use.
func (m *Manager) Sessions() *sessions.Manager { return m.sessions }

// Worktrees returns the worktree service the runtimes verify bindings
// with, for the front ends to list, merge and discard through.
func (m *Manager) Worktrees() *worktree.Service { return m.worktrees }

// Session returns the live session object of a runtime, or opens it.
func (m *Manager) Session(ctx context.Context, id string) (*sessions.Session, error) {
	m.mu.Lock()
	rt := m.runtimes[id]
	m.mu.Unlock()
	if rt != nil {
		if rt.pi != nil {
			// pi writes the file: what it appended is read first.
			if _, err := rt.Session.Refresh(ctx); err != nil {
				return nil, err
			}
		}
		return rt.Session, nil
	}
	return m.sessions.Open(ctx, id)
}

// Live returns the session object of a session's runtime, with what
// other writers appended read, or nil when it has no runtime. A view shows
// its branch: the one the runtime's engine continues, which another
// writer's fork during a pi turn may have led a view's own reading of the
// file away from.
func (m *Manager) Live(ctx context.Context, id string) *sessions.Session {
	m.mu.Lock()
	rt := m.runtimes[id]
	m.mu.Unlock()
	if rt == nil {
		return nil
	}
	if _, err := rt.Session.Refresh(ctx); err != nil {
		return nil // the view keeps its own reading
	}
	return rt.Session
}

// Branch moves a session's leaf to an earlier entry. A busy session
// cannot branch.
func (m *Manager) Branch(ctx context.Context, sessionID, entryID string) error {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt != nil {
		err := rt.Engine.Branch(ctx, entryID)
		if !errors.Is(err, engine.ErrBranchUnsupported) {
			return err
		}
		// The engine cannot move its leaf in place (pi over RPC): it ends,
		// pi-tui moves the leaf in the file, and the next prompt launches
		// the engine on it.
		if !m.Retire(sessionID, ReasonBranched) {
			return engine.ErrBusy
		}
		s, err := m.sessions.Open(ctx, sessionID)
		if err != nil {
			return err
		}
		return s.Branch(ctx, entryID)
	}
	s, err := m.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	return s.Branch(ctx, entryID)
}

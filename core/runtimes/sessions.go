package runtimes

import (
	"context"
	"errors"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// The session façade: the runtimes' sessions as the front ends open,
// branch, fork and delete them. A session with a runtime is the
// runtime's: its live object is the one read, its engine moves its leaf,
// and it is retired before its file goes.

// ReasonSessionDeleted retires the runtime of a session being deleted.
const ReasonSessionDeleted = "session-deleted"

// Sessions is the session façade. The manager makes one
// (Manager.Sessions); it needs of the runtimes only what sessionRuntimes
// names, so its surface is the five things the programs do to a session
// (docs/adr/0090-interfaces-where-consumed.md).
type Sessions struct {
	rts   sessionRuntimes
	store *sessions.Manager
}

// sessionRuntimes is what the façade needs of the runtimes (the
// manager): a session's runtime, if it has one; its retirement; and
// letting go of a session whose file is about to go.
type sessionRuntimes interface {
	runtimeOf(sessionID string) *Runtime
	Retire(sessionID, reason string) bool
	release(ctx context.Context, sessionID string) (closeAfter func(), err error)
}

// Sessions is the session façade over the runtimes.
func (m *Manager) Sessions() *Sessions { return m.facade }

// Delete removes a session's file after retiring its runtime. A busy
// session is not deleted (engine.ErrBusy): abort it first.
func (s *Sessions) Delete(ctx context.Context, id string) error {
	closeAfter, err := s.rts.release(ctx, id)
	if err != nil {
		return err
	}
	defer closeAfter()
	return s.store.Delete(ctx, id)
}

// release lets go of a session whose file is about to be deleted: a pi
// starting for it (Prewarm) is waited for, its runtime retired (refused
// while busy: engine.ErrBusy) and what its pi last sent forgotten.
// closeAfter closes the retired runtime's session object once the file
// is gone.
func (m *Manager) release(ctx context.Context, id string) (closeAfter func(), err error) {
	closeAfter = func() {}
	// A pi starting for the session (Prewarm) is retired, not left behind.
	if err := m.awaitLaunch(ctx, id); err != nil {
		return nil, err
	}
	m.mu.Lock()
	if rt := m.runtimes[id]; rt != nil {
		if rt.busy() {
			m.mu.Unlock()
			return nil, engine.ErrBusy
		}
		m.retireLocked(rt, ReasonSessionDeleted)
		closeAfter = func() { rt.Session.Close() }
	}
	m.mu.Unlock()
	m.sent.Delete(id)
	return closeAfter, nil
}

// Fork starts a new session from the branch of session id up to the
// entry upTo ("" for an empty one) and returns it.
func (s *Sessions) Fork(ctx context.Context, id, upTo string) (*sessions.Session, error) {
	return s.store.Fork(ctx, id, upTo)
}

// Open returns the live session object of a session's runtime, or opens
// the session when it has none.
func (s *Sessions) Open(ctx context.Context, id string) (*sessions.Session, error) {
	if rt := s.rts.runtimeOf(id); rt != nil {
		if rt.pi != nil {
			// pi writes the file: what it appended is read first.
			if _, err := rt.Session.Refresh(ctx); err != nil {
				return nil, err
			}
		}
		return rt.Session, nil
	}
	return s.store.Open(ctx, id)
}

// Live returns the session object of a session's runtime, with what
// other writers appended read, or nil when it has no runtime. A view shows
// its branch: the one the runtime's engine continues, which another
// writer's fork during a pi turn may have led a view's own reading of the
// file away from.
func (s *Sessions) Live(ctx context.Context, id string) *sessions.Session {
	rt := s.rts.runtimeOf(id)
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
func (s *Sessions) Branch(ctx context.Context, sessionID, entryID string) error {
	if rt := s.rts.runtimeOf(sessionID); rt != nil {
		err := rt.Engine.Branch(ctx, entryID)
		if !errors.Is(err, engine.ErrBranchUnsupported) {
			return err
		}
		// The engine cannot move its leaf in place (pi over RPC): it ends,
		// pi-tui moves the leaf in the file, and the next prompt launches
		// the engine on it.
		if !s.rts.Retire(sessionID, ReasonBranched) {
			return engine.ErrBusy
		}
		sess, err := s.store.Open(ctx, sessionID)
		if err != nil {
			return err
		}
		return sess.Branch(ctx, entryID)
	}
	sess, err := s.Open(ctx, sessionID)
	if err != nil {
		return err
	}
	return sess.Branch(ctx, entryID)
}

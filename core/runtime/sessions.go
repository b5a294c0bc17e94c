package runtime

import (
	"context"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/session"
)

// ReasonSessionDeleted retires the runtime of a session being deleted.
const ReasonSessionDeleted = "session-deleted"

// DeleteSession removes a session's file after retiring its runtime. A
// busy session is not deleted (engine.ErrBusy): abort it first.
func (m *Manager) DeleteSession(ctx context.Context, id string) error {
	m.mu.Lock()
	if rt := m.runtimes[id]; rt != nil {
		if rt.busy() {
			m.mu.Unlock()
			return engine.ErrBusy
		}
		m.retireLocked(rt, ReasonSessionDeleted)
		defer rt.Session.Close()
	}
	m.unlock()
	return m.sessions.Delete(ctx, id)
}

// ForkSession starts a new session from the branch of session id up to the
// entry upTo ("" for an empty one) and returns it.
func (m *Manager) ForkSession(ctx context.Context, id, upTo string) (*session.Session, error) {
	return m.sessions.Fork(ctx, id, upTo)
}

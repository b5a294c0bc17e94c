// Package review is the host's face of the checkpoints for the programs:
// a session's changes, their diffs, and guarded undo and redo, with the
// session's file read for what the store needs of it (its entries in
// order, the sessions it was forked from).
package review

import (
	"context"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Service reviews and undoes sessions' changes.
type Service struct {
	store    *checkpoints.Store
	sessions *sessions.Manager
	events   events.Publisher
}

// New returns the service; pub hears ChangesUpdated after each undo and
// redo.
func New(store *checkpoints.Store, sm *sessions.Manager, pub events.Publisher) *Service {
	return &Service{store: store, sessions: sm, events: pub}
}

// Changes lists session id's changes in order, its ancestors' first
// (checkpoints.StateParent).
func (s *Service) Changes(ctx context.Context, id string) ([]checkpoints.Change, error) {
	return nil, nil
}

// Diff is one change as a unified diff.
func (s *Service) Diff(ctx context.Context, c checkpoints.Change) (string, error) {
	return s.store.Diff(ctx, c.Session, c.N)
}

// Undo undoes (or redoes) changes of session id, guarded; see
// checkpoints.Store.Undo.
func (s *Service) Undo(ctx context.Context, id string, u checkpoints.Undo) (checkpoints.UndoResult, error) {
	return checkpoints.UndoResult{}, nil
}

// LastTurn is the entry /undo rewinds to: the last message of the user's
// on the session's current branch after which the session has active
// changes; "" when there are none.
func (s *Service) LastTurn(ctx context.Context, id string) (string, error) {
	return "", nil
}

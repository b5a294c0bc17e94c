// Package review is the host's face of the checkpoints for the programs:
// a session's changes, their diffs, and guarded undo and redo, with the
// session's file read for what the store needs of it (its entries in
// order, the sessions it was forked from).
package review

import (
	"context"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Service reviews and undoes sessions' changes.
type Service struct {
	store    *checkpoints.Store
	sessions *sessions.Manager
	events   events.Publisher

	// changes and undo are the store's, unless a test of this package
	// stands in for them to see the SessionInfo it is given.
	changes func(context.Context, checkpoints.SessionInfo) ([]checkpoints.Change, error)
	undo    func(context.Context, checkpoints.SessionInfo, checkpoints.Undo) (checkpoints.UndoResult, error)
	// folders, when set, gives the canonical roots of a project's folders
	// other than its primary root, as they are now (UseFolders).
	folders func(ctx context.Context, projectID string) ([]string, error)
}

// UseFolders has undo and redo refuse a change made in a folder that is
// no longer one of its project's (removed with --force, ADR 0085): folders
// gives the canonical roots of a project's folders other than its primary
// root. Set it once, before the service is shared.
func (s *Service) UseFolders(folders func(ctx context.Context, projectID string) ([]string, error)) {
	s.folders = folders
}

// New returns the service; pub hears ChangesUpdated after each undo and
// redo.
func New(store *checkpoints.Store, sm *sessions.Manager, pub events.Publisher) *Service {
	return &Service{store: store, sessions: sm, events: pub, changes: store.Changes, undo: store.Undo}
}

// Changes lists session id's changes in order, its ancestors' first
// (checkpoints.StateParent).
func (s *Service) Changes(ctx context.Context, id string) ([]checkpoints.Change, error) {
	v, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	list, err := s.changes(ctx, v.info)
	if err != nil {
		return nil, fmt.Errorf("list the changes of session %s: %w", v.info.ID, err)
	}
	return list, nil
}

// Diff is one change as a unified diff.
func (s *Service) Diff(ctx context.Context, c checkpoints.Change) (string, error) {
	return s.store.Diff(ctx, c.Session, c.N)
}

// Diffs are the diffs of changes (a call's), in their order, reading each
// session's journal once.
func (s *Service) Diffs(ctx context.Context, cs []checkpoints.Change) ([]string, error) {
	out := make([]string, len(cs))
	at := map[string][]int{} // session -> indices into cs
	var order []string
	for i, c := range cs {
		if _, ok := at[c.Session]; !ok {
			order = append(order, c.Session)
		}
		at[c.Session] = append(at[c.Session], i)
	}
	for _, sid := range order {
		ns := make([]int, len(at[sid]))
		for k, i := range at[sid] {
			ns[k] = cs[i].N
		}
		texts, err := s.store.Diffs(ctx, sid, ns)
		if err != nil {
			return nil, err
		}
		for k, i := range at[sid] {
			out[i] = texts[k]
		}
	}
	return out, nil
}

// Undo undoes (or redoes) changes of session id, guarded; see
// checkpoints.Store.Undo. A refusal is a *checkpoints.ConflictError,
// as the store returned it, so a caller can name the files and offer
// Force.
func (s *Service) Undo(ctx context.Context, id string, u checkpoints.Undo) (checkpoints.UndoResult, error) {
	switch {
	case len(u.Changes) == 0 && u.To == "":
		return checkpoints.UndoResult{}, errors.New("say what to undo: change numbers (pi-tui sessions changes ID lists them) or the entry to rewind to")
	case len(u.Changes) > 0 && u.To != "":
		return checkpoints.UndoResult{}, errors.New("undo either changes by number or every change from an entry on, not both")
	}
	v, err := s.read(ctx, id)
	if err != nil {
		return checkpoints.UndoResult{}, err
	}
	if u.To != "" && !v.has(u.To) {
		return checkpoints.UndoResult{}, fmt.Errorf("session %s has no entry %s; pi-tui sessions changes %s lists the entries that made changes", v.info.ID, u.To, v.info.ID)
	}
	if s.folders != nil && v.projectID != "" {
		roots, err := s.folders(ctx, v.projectID)
		if err != nil {
			return checkpoints.UndoResult{}, fmt.Errorf("the folders of session %s's project cannot be read, so nothing was undone: %w", v.info.ID, err)
		}
		v.info.Folders = make(map[string]bool, len(roots))
		for _, r := range roots {
			v.info.Folders[r] = true
		}
	}
	res, err := s.undo(ctx, v.info, u)
	if err != nil {
		if ce := (*checkpoints.ConflictError)(nil); errors.As(err, &ce) {
			return res, ce
		}
		verb := "undo"
		if u.Redo {
			verb = "redo"
		}
		return res, fmt.Errorf("%s in session %s: %w", verb, v.info.ID, err)
	}
	if s.events != nil {
		s.events.Publish(events.ChangesUpdated{SessionID: v.info.ID})
	}
	return res, nil
}

// LastTurn is the entry /undo rewinds to: the last message of the user's
// on the session's current branch after which the session has active
// changes; "" when there are none.
//
// "After" is file order, the order Undo's To rewinds in: the message
// found is the last one whose rewind would undo something.
func (s *Service) LastTurn(ctx context.Context, id string) (string, error) {
	v, err := s.read(ctx, id)
	if err != nil {
		return "", err
	}
	list, err := s.changes(ctx, v.info)
	if err != nil {
		return "", fmt.Errorf("list the changes of session %s: %w", v.info.ID, err)
	}
	latest := -1 // the file position of the latest entry with an active own change
	for _, c := range list {
		if c.State != checkpoints.StateActive || c.Session != v.info.ID {
			continue
		}
		if at, ok := v.at[c.Entry]; ok && at > latest {
			latest = at
		}
	}
	for i := len(v.users) - 1; i >= 0; i-- {
		if v.at[v.users[i]] <= latest {
			return v.users[i], nil
		}
	}
	return "", nil
}

// From lists the session's own active changes that undo --to entry
// would undo: those of entry and of the entries after it in the file (a
// change whose entry the file does not hold yet counts as the latest).
// /undo and /tree say what they would rewind before asking.
func (s *Service) From(ctx context.Context, id, entry string) ([]checkpoints.Change, error) {
	v, err := s.read(ctx, id)
	if err != nil {
		return nil, err
	}
	pos, ok := v.at[entry]
	if !ok {
		return nil, fmt.Errorf("session %s has no entry %s", v.info.ID, entry)
	}
	list, err := s.changes(ctx, v.info)
	if err != nil {
		return nil, fmt.Errorf("list the changes of session %s: %w", v.info.ID, err)
	}
	var out []checkpoints.Change
	for _, c := range list {
		if c.State != checkpoints.StateActive || c.Session != v.info.ID {
			continue
		}
		if at, known := v.at[c.Entry]; !known || at >= pos {
			out = append(out, c)
		}
	}
	return out, nil
}

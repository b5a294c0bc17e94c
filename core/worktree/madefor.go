package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/store"
)

// MadeForNamespace is the kv namespace recording which session pi-tui made
// each worktree for (ADR 0032): key = the folder's path under
// <data dir>/worktrees ("<project id>/<short id>"), value = a madeFor as
// JSON. Only NewSession writes a row and only a discard of that very
// session removes it. A session file names its folder only through the
// short id, which a planted file can copy; the store is pi-tui's own (a
// repository cannot write it), so this row is what ties a folder to one
// full session id.
const MadeForNamespace = "worktreeMadeFor"

// madeFor is one row of MadeForNamespace.
type madeFor struct {
	SessionID string `json:"sessionId"`
	ProjectID string `json:"projectId"`
}

func madeForKey(projectID, short string) string { return projectID + "/" + short }

// recordMadeFor writes the row for a folder about to be made; a row there
// already (another session with the same short id) refuses it, so no
// record is ever overwritten.
func (s *Service) recordMadeFor(ctx context.Context, projectID, short, sessionID string) error {
	raw, err := json.Marshal(madeFor{SessionID: sessionID, ProjectID: projectID})
	if err != nil {
		return err
	}
	err = s.st.CompareAndSwapKV(ctx, MadeForNamespace, madeForKey(projectID, short), nil, string(raw))
	if errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("pi-tui already made the worktree folder %s for another session; start the session again (it gets another id)", madeForKey(projectID, short))
	}
	return err
}

// madeForOf reads the row of a folder; found is false when pi-tui has no
// record of it (a worktree made before pi-tui kept them, or none at all).
// A row that does not parse counts as naming no session.
func (s *Service) madeForOf(ctx context.Context, projectID, short string) (m madeFor, found bool, err error) {
	kv, found, err := s.st.GetKV(ctx, MadeForNamespace, madeForKey(projectID, short))
	if err != nil || !found {
		return madeFor{}, found, err
	}
	if json.Unmarshal([]byte(kv.Value), &m) != nil {
		return madeFor{}, true, nil
	}
	return m, true, nil
}

// dropMadeFor removes the row of a folder that was made for sessionID
// (after its discard); a row naming anyone else stays.
func (s *Service) dropMadeFor(ctx context.Context, projectID, short, sessionID string) error {
	kv, found, err := s.st.GetKV(ctx, MadeForNamespace, madeForKey(projectID, short))
	if err != nil || !found {
		return err
	}
	var m madeFor
	if json.Unmarshal([]byte(kv.Value), &m) != nil || m.SessionID != sessionID {
		return nil
	}
	return s.st.CompareAndDeleteKV(ctx, MadeForNamespace, kv.Key, kv.Value)
}

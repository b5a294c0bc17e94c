package checkpoints

import (
	"context"
	"strings"
)

// Undo asks for changes to be undone (or redone).
type Undo struct {
	// Changes are the numbers of the session's own changes to undo.
	Changes []int
	// To, instead, undoes every active change made by entry To and the
	// entries after it in the session file (every file back to how it was
	// before that message). It must be in info.Order.
	To string
	// Redo redoes Changes (undone ones) instead.
	Redo bool
	// Force writes even over files that changed since (the UI asks first).
	Force bool
}

// UndoResult is what an undo or redo did.
type UndoResult struct {
	Changes []int    // the changes now undone (or redone)
	Files   []string // the files written or removed, relative to the root
}

// Conflict is a file an undo would overwrite that is no longer as the
// change left it, or one it cannot restore.
type Conflict struct {
	Path   string // relative to the root
	Reason string // "changed since the agent left it", "changed again by change 7", …
	// Forceable says Force would write it anyway (the file changed since);
	// a content that was not kept, or a later change in the way, cannot be
	// forced.
	Forceable bool
}

// ConflictError refuses a whole undo: nothing was written.
type ConflictError struct {
	Conflicts []Conflict
}

// Forceable says Force would get past every conflict.
func (e *ConflictError) Forceable() bool {
	for _, c := range e.Conflicts {
		if !c.Forceable {
			return false
		}
	}
	return true
}

// Lines are the conflicts as a dialog lists them: "path (reason)".
func (e *ConflictError) Lines() []string {
	out := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		out[i] = c.Path + " (" + c.Reason + ")"
	}
	return out
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	b.WriteString("nothing was changed: ")
	for i, c := range e.Conflicts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Path + " " + c.Reason)
	}
	return b.String()
}

// Undo undoes or redoes changes of session info.ID in the files, guarded:
// every file must still be exactly as the change (or the undo) left it,
// or nothing is written and a *ConflictError names the files (unless
// u.Force). Writes are atomic, through the root (no link leads out).
func (s *Store) Undo(ctx context.Context, info SessionInfo, u Undo) (UndoResult, error) {
	return s.undo(ctx, info, u)
}

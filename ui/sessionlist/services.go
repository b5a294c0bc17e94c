package sessionlist

import (
	"context"
	"time"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// What the list asks of the core, each defined here where it is asked and
// holding only what the list calls (docs/adr/0090-interfaces-where-consumed.md):
// the composition (the Session tab, ui) passes the host's services and
// the runtimes' session façade.

// Store is the project's sessions as their files hold them
// (core/sessions.Manager): the list, and each project's session count kept
// in line with its folder.
type Store interface {
	List(ctx context.Context, projectID string) ([]sessions.Summary, error)
	Reconcile(ctx context.Context) (changed bool, err error)
}

// Sessions is what the list does to one session through its runtime
// (core/runtimes.Sessions): open it (the runtime's live object when it
// has one) to name it or act on its worktree, and delete it, its runtime
// retired first.
type Sessions interface {
	Open(ctx context.Context, id string) (*sessions.Session, error)
	Delete(ctx context.Context, id string) error
}

// Worktrees is what the list asks of the worktree service
// (core/worktree.Service): the listed sessions' bindings, their statuses,
// and a worktree's diff, merge, discard and unbinding.
type Worktrees interface {
	Of(ctx context.Context, projectID string, sums []sessions.Summary) worktree.Sessions
	Statuses(ctx context.Context, wts map[string]sessions.Worktree, maxAge time.Duration) map[string]worktree.Status
	Status(ctx context.Context, sess *sessions.Session) (worktree.Status, sessions.Worktree, error)
	Diff(ctx context.Context, sess *sessions.Session) (string, error)
	Merge(ctx context.Context, sess *sessions.Session, message string) (worktree.MergeResult, sessions.Worktree, error)
	Discard(ctx context.Context, sess *sessions.Session) (sessions.Worktree, error)
	Unbind(ctx context.Context, sess *sessions.Session) (sessions.Worktree, error)
}

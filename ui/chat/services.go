package chat

import (
	"context"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/skills"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// What the chat asks of the core, each defined here where it is asked and
// holding only what the chat calls (docs/adr/0090-interfaces-where-consumed.md).
// The composition (the Session tab, ui) passes the runtime manager, its
// session façade, pi's catalogue and plan mode, and the host's session
// store and worktree service; a test passes what it needs.

// Runtime is what the chat asks of the runtime manager
// (core/runtimes.Manager): a turn and the runtime's state, what its
// runtime is given (/context), the engine it runs on, and the session's
// skills and templates (the composer's part, commandRuntime).
type Runtime interface {
	Prompt(ctx context.Context, sessionID, modelSpec, text string) (engine.Result, error)
	Compact(ctx context.Context, sessionID, modelSpec, extra string) (summary string, err error)
	Abort(sessionID string) bool
	State(sessionID string) runtimes.State
	Usage(ctx context.Context, sessionID string) (runtimes.SessionUsage, error)
	// Prewarm launches the session's runtime before its first prompt.
	Prewarm(ctx context.Context, sessionID string) error
	Inspect(ctx context.Context, sessionID, modelSpec string) (runtimes.Inspection, error)
	Engines() *engine.Registry
	commandRuntime
}

// commandRuntime is what the composer asks of the runtimes for the "/"
// menu and a typed /command: the engine the session runs on (whether its
// commands are its own, pi's), and pi-tui's own skills and templates.
type commandRuntime interface {
	EngineOf(ctx context.Context, sessionID string) (engine.Descriptor, error)
	Commands(ctx context.Context, sessionID string) (*skills.Set, error)
	Expand(ctx context.Context, sessionID, text string) (string, error)
}

// Sessions is what the chat does to its session through the runtimes
// (core/runtimes.Sessions): open it (its runtime's live object when it
// has one), read the branch its runtime continues, move its leaf, fork it.
type Sessions interface {
	Open(ctx context.Context, id string) (*sessions.Session, error)
	Live(ctx context.Context, id string) *sessions.Session
	Branch(ctx context.Context, sessionID, entryID string) error
	Fork(ctx context.Context, id, upTo string) (*sessions.Session, error)
}

// Catalogue is pi's catalogue of a session (core/runtimes.Catalogue), for
// a session on an engine with models, thinking levels and commands of its
// own: the /model list, the levels, and the "/" menu (piCommands, the
// composer's part).
type Catalogue interface {
	Models(ctx context.Context, sessionID string) ([]runtimes.PiModel, error)
	Thinking(ctx context.Context, sessionID string) (runtimes.PiThinking, error)
	piCommands
}

// piCommands is the composer's part of pi's catalogue.
type piCommands interface {
	Commands(ctx context.Context, sessionID string) ([]runtimes.PiCommand, error)
}

// Plans is the sessions' plan mode (core/runtimes.Plans), which every
// program showing a session shares.
type Plans interface {
	Set(sessionID string, on bool) bool
	On(sessionID string) bool
}

// Store is the project's sessions as their files hold them
// (core/sessions.Manager): a new one (/new, and the one a worktree session
// is), and the latest (pi-tui -c).
type Store interface {
	Create(ctx context.Context, projectID, title string) (*sessions.Session, error)
	Latest(ctx context.Context, projectID string) (sessions.Summary, bool, error)
}

// Worktrees is what the chat asks of the worktree service
// (core/worktree.Service): the worktree an opened session works in, and a
// new session in a worktree of its own (/worktree).
type Worktrees interface {
	Lookup(ctx context.Context, sess *sessions.Session) (w sessions.Worktree, bound bool, err error)
	NewSession(ctx context.Context, sm worktree.SessionCreator, projectID, base, title string) (*sessions.Session, sessions.Worktree, error)
}

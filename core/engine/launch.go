package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Launch is what the runtime manager hands an engine's constructor
// (Descriptor.Start) for one runtime: the session, where it works, the
// model, and the host's hooks every tool call goes through. It names no
// engine: each engine takes what it needs of it, and the manager fills
// it the same way whichever engine it starts
// (docs/adr/0094-engines-constructed-by-their-descriptor.md).
type Launch struct {
	// Session is the session the runtime continues. The manager has
	// written its file's header (its cwd: Root) before a Process engine
	// starts, so a program reading the file works where the host
	// confines it.
	Session *sessions.Session
	// Root is the session's root (its worktree, or the project folder),
	// bound by the host: the file tools are confined to it.
	Root string
	// Folders are the project's folders, Root first, when it has others
	// (ADR 0085): the file tools reach each, confined to it as to Root.
	// nil: Root alone.
	Folders confine.Folders
	// Reached is told, once per folder, when a tool call allowed to run
	// first names a path in a folder other than Root; nil: nobody.
	Reached func(confine.Folder)
	// AgentDir is pi's agent dir (models.json, settings.json, logins),
	// Home the user's home, DataDir pi-tui's data dir (where an engine
	// may keep files of its own, such as a bridge's).
	AgentDir, Home, DataDir string

	// Client makes the model calls, for an engine of pi-tui's own models;
	// an engine with models of its own (Capabilities.Models) resolves
	// Model itself and takes none. nil when pi-tui cannot build one.
	Client provider.Client
	// Model is the model and thinking level the runtime runs.
	Model provider.Model
	// System is the whole system prompt, for an engine that builds none
	// of its own.
	System string
	// Sections are pi-tui's sections (instructions, memory, folders, …),
	// for an engine that builds its own prompt around them
	// (Capabilities.OwnPrompt). It is read each time the engine asks: the
	// runtime adopting memory its agent wrote changes them in place.
	Sections func() string
	// Tools are the tools the model is offered; Permission is the
	// permission mode.
	Tools      []string
	Permission string

	// Preflight answers a tool call's target chain; PreflightTimeout
	// bounds one (toolpolicy.DefaultPreflightTimeout when 0); BaseChain
	// labels the root chain, the one a fallback gives.
	Preflight        toolpolicy.Preflighter
	PreflightTimeout time.Duration
	BaseChain        []string
	// Approve decides what the permission mode asks; nil denies.
	Approve toolpolicy.Approver
	// Memory is the remember tool's writer; nil: Tools does not name it.
	Memory toolpolicy.MemoryWriter
	// Checkpoints brackets each call that can change files; nil takes
	// none.
	Checkpoints toolpolicy.Checkpointer
	// Plan says whether the session is in plan mode, asked before each
	// model call and each tool call; nil: never.
	Plan func() bool
	// Events takes the engine's events (events.Event kinds).
	Events events.Publisher

	// Compaction and Shell are pi's settings for the project: when to
	// compact, and how bash runs.
	Compaction pisettings.Compaction
	Shell      pisettings.Shell

	// What a Process engine takes besides: Found is the program its
	// descriptor's Locate found; Env is added to the environment it runs
	// with.
	Found Found
	Env   []string
	// Trusted says whether the program may load the project's own
	// resources and, when not, why, in words that say how to trust it
	// (nil: no).
	Trusted func(ctx context.Context) (ok bool, why string, err error)
	// Sent is told what the engine reports it sent the model (an
	// OwnPrompt engine's account, for /context); nil: nobody.
	Sent func(Sent)
	// Ask opens a dialog the program's extensions ask the user, where the
	// session is shown; its reply says Cancelled when nobody can answer.
	Ask func(ctx context.Context, d events.Dialog) events.DialogReply
	// Closed runs once after the engine Start returned has closed and
	// all it ran is gone (not when Start fails).
	Closed func()
}

// Sent is what an engine building its own prompt (Capabilities.OwnPrompt)
// reports it sent the model.
type Sent struct {
	// At is when the host was told; Pending: nothing was sent yet, and
	// SystemPrompt and Tools are what the engine has at its start.
	At      time.Time
	Pending bool
	// SystemPrompt is the whole prompt sent; Added is the part pi-tui's
	// sections appended to the engine's own ("" for none).
	SystemPrompt, Added string
	Tools               []SentTool
}

// SentTool is one tool declaration as the request carried it.
type SentTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

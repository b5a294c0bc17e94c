package events

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
)

// Event is one thing that happened in the core, of one of the kinds below:
// a closed set. An engine (the built-in agent, or pi) produces the agent
// and runtime kinds, the host the rest, and every consumer takes them by
// type (a type switch), never by a type string. The unexported method
// seals the set, so that a new kind is added here, where the broker routes
// it and wire.go encodes it, or not at all.
type Event interface {
	// Session is the id of the session the event belongs to; "" for the
	// kinds that belong to none (projects, memory).
	Session() string
	event()
}

// The agent's turn.

// AgentStarted says a prompt was stored and the agent's turn began.
type AgentStarted struct{ SessionID string }

// TextDelta is a piece of the streamed answer.
type TextDelta struct{ SessionID, Text string }

// ThinkingDelta is a piece of the streamed reasoning.
type ThinkingDelta struct{ SessionID, Text string }

// MessageEnded says one model message (one turn of the loop) is complete,
// or broke off: Error is set then, and Text is what arrived.
type MessageEnded struct {
	SessionID  string
	Text       string
	StopReason string
	Usage      *provider.Usage
	Error      string
}

// Retrying says a model call failed before any answer arrived and is
// about to be made again, after Delay.
type Retrying struct {
	SessionID            string
	Attempt, MaxAttempts int
	Delay                time.Duration
	Reason               string
}

// AgentEnded ends every prompt, failures included, exactly once.
type AgentEnded struct {
	SessionID  string
	Text       string // the final answer
	Usage      *provider.Usage
	StopReason string
	Error      string
}

// Tool calls.

// ToolStarted says the model's tool call began (before its preflight and
// approval).
type ToolStarted struct {
	SessionID, ToolCallID, ToolName string
	Args                            json.RawMessage
	// Params are the tool schema's properties in order, when the engine
	// knows them (pi's tools, through the bridge): the call's line shows
	// its arguments by them.
	Params []string
}

// ToolOutput is a running command's new output. Skipped counts the bytes
// before Text that were printed too fast to pass on.
type ToolOutput struct {
	SessionID, ToolCallID, ToolName string
	Text                            string
	Skipped                         int64
}

// ToolEnded is a tool call's result, with its preflight apart from the
// tool's own time.
type ToolEnded struct {
	SessionID, ToolCallID, ToolName string
	Path                            string // relative to the root, for file tools
	IsError                         bool
	Result                          string
	Preflight                       *Preflight
	ToolMs                          float64
	// Delivery says which instructions the result carried.
	Delivery *Delivery
	// Denied marks a call that needed approval and did not get it.
	Denied bool
	// MemoryChange is what a remember call changed, for the transcript's
	// change line and its undo.
	MemoryChange *memory.Change
	// Changes are the files the call changed, as its checkpoint recorded
	// them (the review card under the call); ChangesNote says what the
	// checkpoint could not see or keep ("" when nothing).
	Changes     []FileChange
	ChangesNote string
}

// FileChange is one file a tool call changed, as the review card shows
// it. N is the change's number in the session (pi-tui sessions changes).
type FileChange struct {
	N              int
	Path           string // slash-separated, relative to the root
	Status         string // "added", "modified" or "deleted"
	Added, Removed int    // lines; 0 for binary files
	Binary         bool
	// Kept says both sides' content is kept, so the change can be undone.
	Kept bool
}

// ChangesUpdated says a session's changes were undone or redone: views of
// its changes (cards, the Review screen) reread them.
type ChangesUpdated struct {
	SessionID string
}

// PlanChanged says a session entered plan mode (On) or left it, so every
// program showing the session says so (ADR 0058).
type PlanChanged struct {
	SessionID string
	On        bool
}

// Preflight records one instruction preflight of a file tool. Its JSON
// form is the wire's and the session file's (pi-tui's tool results).
type Preflight struct {
	Ms       float64  `json:"ms"`
	Cache    string   `json:"cache"`              // "hit" or "miss"
	Fallback string   `json:"fallback"`           // "base" when the base chain applied, else ""
	Labels   []string `json:"labels,omitempty"`   // the chain in effect for this tool
	Withheld []string `json:"withheld,omitempty"` // nested files not loaded (untrusted)
}

// Delivery is what a tool result carried of the instructions in effect.
type Delivery struct {
	Chain     []string        `json:"chain"`
	Delivered []DeliveredFile `json:"delivered,omitempty"`
	Deferred  []string        `json:"deferred,omitempty"`
	Untrusted bool            `json:"untrusted,omitempty"`
	Withheld  []string        `json:"withheld,omitempty"`
	// Fallback is set when the chain could not be resolved in time and the
	// base chain applies.
	Fallback bool `json:"fallback,omitempty"`
}

// DeliveredFile is one delivered file.
type DeliveredFile struct {
	Label     string `json:"label"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated,omitempty"`
	Via       string `json:"via"`
}

// Compaction and the message queue.

// CompactionStarted says the context before the latest turn is being
// summarised.
type CompactionStarted struct{ SessionID string }

// CompactionEnded carries the summary, or why there is none.
type CompactionEnded struct{ SessionID, Summary, Error string }

// QueueChanged lists the messages waiting for a running turn: steering
// (delivered before the next model call) and follow-ups (after the turn
// would have ended).
type QueueChanged struct {
	SessionID          string
	Steering, FollowUp []string
}

// Extensions (the pi engine: pi's extensions and pi itself speaking to
// the user outside the turn's text).

// Notice is a one-line message for the user: an extension's notify, an
// extension that failed (extension_error), or an engine's own warning (a
// dialog cancelled for want of a UI, a record pi garbled). Level is
// "info", "warning" or "error"; Source names who says it (an extension's
// path, "pi", "pi-tui").
type Notice struct {
	SessionID           string
	Level, Source, Text string
}

// ExtensionStatus is an extension's fire-and-forget display request:
// Method "setStatus" (Key, Text; Text "" clears), "setWidget" (Key, Lines,
// Placement; no Lines clears), "setTitle" (Text) or "set_editor_text"
// (Text).
type ExtensionStatus struct {
	SessionID, Method, Key, Text string
	Lines                        []string
	Placement                    string
}

// Runtimes.

// RuntimeLaunched says a runtime started for the session, on Engine
// ("builtin", "pi") at EngineVersion, and why (Reason: new,
// instructions-changed, …).
type RuntimeLaunched struct {
	SessionID, Reason, Model string
	Engine, EngineVersion    string
	// Resources says which of the project's own resources pi loaded or
	// declined; nil when pi asked no trust question (none in the project,
	// or the built-in engine).
	Resources *ProjectResources
}

// ProjectResources are the project's own pi resources (.pi/settings.json,
// .pi/extensions/…, .agents/skills/…) as pi's trust decided them: Loaded
// when the project is trusted, else Declined, with Reason saying why and
// how to trust it.
type ProjectResources struct {
	Loaded   []string `json:"loaded,omitempty"`
	Declined []string `json:"declined,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

// RuntimeReused says the idle runtime was kept: nothing changed.
type RuntimeReused struct{ SessionID, Reason, Model string }

// RuntimeRetired says the runtime ended, and why.
type RuntimeRetired struct{ SessionID, Reason, Model string }

// Approvals (published by Broker.Ask only).

// Asked is an approval question of a session's turn.
type Asked struct {
	ID        uint64
	SessionID string
	// Root is the folder the session works in (for a diff): the project's,
	// or the session's own worktree. ProjectRoot is the project's, which
	// keys its approval rules.
	Root, ProjectRoot string
	Request           Approval
	// Dialog, when set, makes this an extension's question instead (pi's
	// extension_ui_request: select, confirm, input, editor); Request is
	// then empty. It lives, is shown and ends as an approval does, so the
	// same rules hold: keys typed before it appeared never answer it, and
	// nobody showing the session cancels it.
	Dialog *Dialog
}

// Dialog is an extension's question to the user.
type Dialog struct {
	Method         string // "select", "confirm", "input" or "editor"
	Title, Message string
	Options        []string // select's choices
	Placeholder    string   // input's hint
	Prefill        string   // editor's starting text
	// Timeout is how long the extension waits (0: no limit); once it has
	// passed, the question is withdrawn.
	Timeout time.Duration
}

// DialogReply is the user's answer to a Dialog: the chosen or typed Value,
// confirm's Confirmed, or Cancelled.
type DialogReply struct {
	Value     string
	Confirmed bool
	Cancelled bool
}

// Approval is a request to run a tool call that needs the user's consent.
type Approval struct {
	ToolCallID string          `json:"toolCallId"`
	Tool       string          `json:"tool"`
	Path       string          `json:"path,omitempty"`
	Command    string          `json:"command,omitempty"`
	Args       json.RawMessage `json:"args"`
	// Params are the tool schema's properties in order, when known (an
	// extension's or MCP server's tool under pi): its arguments are shown
	// by them.
	Params []string `json:"params,omitempty"`
	// Reason says why this call asks even where its kind of tool would not
	// (a write under .git/ or to a file that tools run), so the dialog can
	// tell the user; "" for the ordinary approval of the permission mode.
	Reason string `json:"reason,omitempty"`
	// Folder and FolderRoot are set when Path lies in a folder of the
	// project other than the session's root (ADR 0085): that folder's
	// name and canonical root, where the preview reads the file. Path is
	// then written NAME:path, relative to that folder: the form the
	// project's approval rules match.
	Folder     string `json:"folder,omitempty"`
	FolderRoot string `json:"folderRoot,omitempty"`
}

// In is where the file a call names is read for its preview: the folder
// holding it and the path inside it; root is the session's.
func (a Approval) In(root string) (dir, path string) {
	if a.FolderRoot == "" {
		return root, a.Path
	}
	if _, rest, ok := strings.Cut(a.Path, ":"); ok {
		return a.FolderRoot, rest
	}
	return a.FolderRoot, a.Path
}

// Resolved says how a question ended. Every subscriber that was shown the
// question gets it, the one that answered too.
type Resolved struct {
	ID        uint64
	SessionID string
	Answer    Answer
	// Reply is the answer to a Dialog question.
	Reply DialogReply
	// By is the subscription that answered (Subscription.ID); 0 when the
	// core ended the question.
	By uint64
	// Withdrawn: the turn ended or was aborted before anyone answered.
	Withdrawn bool
	// Unattended: the last program showing the session left it, and the
	// question was denied.
	Unattended bool
}

// The host's state.

// ProjectsChanged says projects, their memory or their sessions changed
// (a registry write, a memory save, a session's turn or compaction): lists
// should be reloaded. ProjectID is "" when more than one may have changed.
type ProjectsChanged struct{ ProjectID string }

// MemoryChanged says the memory of the project at Root was saved through
// this process (idle runtimes whose memory it changes are retired).
type MemoryChanged struct{ Root string }

// SessionAppended says entries another writer appended to the session
// (pi, another pi-tui, another session object) were read: a view of it
// rereads its branch.
type SessionAppended struct {
	SessionID string
	Entries   int
}

func (e AgentStarted) Session() string      { return e.SessionID }
func (e TextDelta) Session() string         { return e.SessionID }
func (e ThinkingDelta) Session() string     { return e.SessionID }
func (e MessageEnded) Session() string      { return e.SessionID }
func (e Retrying) Session() string          { return e.SessionID }
func (e AgentEnded) Session() string        { return e.SessionID }
func (e ToolStarted) Session() string       { return e.SessionID }
func (e ToolOutput) Session() string        { return e.SessionID }
func (e ToolEnded) Session() string         { return e.SessionID }
func (e CompactionStarted) Session() string { return e.SessionID }
func (e CompactionEnded) Session() string   { return e.SessionID }
func (e QueueChanged) Session() string      { return e.SessionID }
func (e Notice) Session() string            { return e.SessionID }
func (e ExtensionStatus) Session() string   { return e.SessionID }
func (e RuntimeLaunched) Session() string   { return e.SessionID }
func (e RuntimeReused) Session() string     { return e.SessionID }
func (e RuntimeRetired) Session() string    { return e.SessionID }
func (e Asked) Session() string             { return e.SessionID }
func (e Resolved) Session() string          { return e.SessionID }
func (e SessionAppended) Session() string   { return e.SessionID }
func (e ChangesUpdated) Session() string    { return e.SessionID }
func (e PlanChanged) Session() string       { return e.SessionID }
func (ProjectsChanged) Session() string     { return "" }
func (MemoryChanged) Session() string       { return "" }

func (AgentStarted) event()      {}
func (TextDelta) event()         {}
func (ThinkingDelta) event()     {}
func (MessageEnded) event()      {}
func (Retrying) event()          {}
func (AgentEnded) event()        {}
func (ToolStarted) event()       {}
func (ToolOutput) event()        {}
func (ToolEnded) event()         {}
func (CompactionStarted) event() {}
func (CompactionEnded) event()   {}
func (QueueChanged) event()      {}
func (Notice) event()            {}
func (ExtensionStatus) event()   {}
func (RuntimeLaunched) event()   {}
func (RuntimeReused) event()     {}
func (RuntimeRetired) event()    {}
func (Asked) event()             {}
func (Resolved) event()          {}
func (ProjectsChanged) event()   {}
func (MemoryChanged) event()     {}
func (SessionAppended) event()   {}
func (ChangesUpdated) event()    {}
func (PlanChanged) event()       {}

// topicOf is the topic an event travels on, and whether it belongs to one
// session (a subscriber showing another session does not get it).
func topicOf(e Event) (Topic, bool) {
	switch e.(type) {
	case Asked, Resolved:
		return Approvals, true
	case ProjectsChanged:
		return Projects, false
	case MemoryChanged:
		return Memory, false
	case SessionAppended, ChangesUpdated, PlanChanged:
		return Sessions, true
	}
	return Agent, true
}

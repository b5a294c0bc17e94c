package checkpoints

import (
	"context"

	"github.com/pi-tui/pi-tui/core/events"
)

// Recorder records the tool calls of one session working in one root. A
// runtime holds one; it is safe for concurrent use (pi runs a message's
// tool calls at once).
type Recorder struct {
	s         *Store
	sessionID string
	file      string // the session file (its absence, later, means the session is gone)
	root      string
	folder    string // the folder's name, for a folder other than the session's root
}

// Recorder returns the recorder of session sessionID (whose file is
// sessionFile) working in root (canonical, absolute).
func (s *Store) Recorder(sessionID, sessionFile, root string) *Recorder {
	return &Recorder{s: s, sessionID: sessionID, file: sessionFile, root: root}
}

// FolderRecorder is Recorder for a folder of a project of several
// folders other than the session's root (ADR 0085): its changes are shown
// as name:path, and undoing them is refused once the folder is no longer
// the project's (SessionInfo.Folders).
func (s *Store) FolderRecorder(sessionID, sessionFile, root, name string) *Recorder {
	return &Recorder{s: s, sessionID: sessionID, file: sessionFile, root: root, folder: name}
}

// Call is a tool call about to run.
type Call struct {
	ToolCallID, Tool string
	// Entry is the session entry that made the call: the assistant message
	// holding it ("" when not known yet).
	Entry string
	// Paths are the files the call can change (absolute, canonical): write
	// and edit name their target. Nil means any file (bash, an
	// extension's tool): the project is walked.
	Paths []string
}

// Mark is a call's state before it ran; After records what it changed.
type Mark struct {
	r    *Recorder
	call Call
	note string // why Before could not record (After says it)
}

// Result is what a call changed, for its ToolEnded event and card.
type Result struct {
	Changes []events.FileChange
	// Note says what the checkpoint could not see or keep ("" when
	// nothing): a partial walk, a file over the bound, a failed save.
	Note string
}

// Before records the state the call starts from. It never fails the tool
// call: what went wrong is said in After's note.
func (r *Recorder) Before(ctx context.Context, c Call) *Mark {
	return r.before(ctx, c)
}

// After records what the call changed since Before and returns it.
func (m *Mark) After(ctx context.Context) Result {
	if m == nil {
		return Result{}
	}
	return m.r.after(ctx, m)
}

// Prewarm walks the project once, so the first call that walks it does
// not pay for reading every file. A runtime launched ahead of its first
// prompt runs it in the background; one a prompt launched does not
// (ADR 0087). ctx ends it.
func (r *Recorder) Prewarm(ctx context.Context) error {
	return r.prewarm(ctx)
}

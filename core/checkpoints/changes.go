package checkpoints

import (
	"context"
	"time"
)

// States of a change.
const (
	StateActive = "active" // its result is in the files (as far as pi-tui knows)
	StateUndone = "undone" // undone; it can be redone
	StateParent = "parent" // made in the session this one was forked from: shown, not undone here
)

// Statuses of a change.
const (
	StatusAdded    = "added"
	StatusModified = "modified"
	StatusDeleted  = "deleted"
)

// Letter is a status as git's short forms write it: A, M or D.
func Letter(status string) string {
	switch status {
	case StatusAdded:
		return "A"
	case StatusDeleted:
		return "D"
	case StatusModified:
		return "M"
	}
	return "?"
}

// Change is one file one tool call changed. Its JSON form is `pi-tui
// sessions changes --json`.
type Change struct {
	N          int    `json:"n"`     // its number in the session it was made in
	Entry      string `json:"entry"` // the assistant entry that made the call
	ToolCallID string `json:"toolCallId"`
	Tool       string `json:"tool"`
	Path       string `json:"path"` // slash-separated, relative to the root; NAME:path in another folder of the project
	// Folder names the folder of a project of several folders the change
	// was made in, when it is not the session's root.
	Folder  string `json:"folder,omitempty"`
	Status  string `json:"status"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	State   string `json:"state"`
	Binary  bool   `json:"binary,omitempty"`
	// Kept says both sides' content is kept (the change can be undone).
	Kept bool `json:"kept"`
	// Session is the session the change was made in (a parent's for
	// StateParent).
	Session string    `json:"session"`
	At      time.Time `json:"at"`
}

// SessionInfo is what the store needs to know of a session's file.
type SessionInfo struct {
	ID string
	// Order holds the file's entry ids in file order (time order): undo
	// --to rewinds the changes of the entries from one on, and a fork
	// shows its ancestors' changes whose entries it holds.
	Order []string
	// Ancestors are the ids of the sessions it was forked from, nearest
	// first.
	Ancestors []string
	// Folders, when not nil, are the canonical roots of the session's
	// project's folders other than its primary root as they are now: a
	// change made in a folder of the project that is no longer one (it
	// was removed, --force) is not undone or redone (ADR 0085). nil: not
	// checked.
	Folders map[string]bool
}

// Changes lists the session's changes in order: its ancestors' first
// (StateParent, only those whose entry the session holds), then its own.
func (s *Store) Changes(ctx context.Context, info SessionInfo) ([]Change, error) {
	return s.changes(ctx, info)
}

// Diff is change n of session sessionID as a unified diff (git's form,
// with a/ and b/ paths), or a sentence saying why its content cannot be
// shown (binary, over the bound).
func (s *Store) Diff(ctx context.Context, sessionID string, n int) (string, error) {
	return s.diff(ctx, sessionID, n)
}

// Diffs is Diff of several changes of one session, reading its journal
// once.
func (s *Store) Diffs(ctx context.Context, sessionID string, ns []int) ([]string, error) {
	return s.diffs(ctx, sessionID, ns)
}

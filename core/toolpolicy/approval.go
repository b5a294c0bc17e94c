package toolpolicy

import (
	"context"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
)

// Permission modes: ask asks before any call that edits files or runs a
// command; auto-edits asks only before one that runs a command (or edits a
// file git would run); full-auto asks before none.
const (
	PermissionAsk       = "ask"
	PermissionAutoEdits = "auto-edits"
	PermissionFullAuto  = "full-auto"
)

// Approval is a request to run a tool that needs the user's consent, as
// the broker puts it to the programs showing the session.
type Approval = events.Approval

// Approver decides an Approval. A nil Approver denies everything that
// needs approval (headless runs without --yes). A *DeniedError denies
// with the user's reason, which the model reads in the tool result.
type Approver func(ctx context.Context, req Approval) (bool, error)

// DeniedError is an Approver's "no, because…".
type DeniedError struct {
	Reason string
	// Unasked, when set, is the whole sentence the model reads instead of
	// "The user denied…": the call was refused without anybody being
	// asked (a headless run that grants no approvals), and the model must
	// not be told that a person said no.
	Unasked string
}

func (e *DeniedError) Error() string {
	if e.Unasked != "" {
		return e.Unasked
	}
	return "the user denied this call: " + e.Reason
}

// deniedText is the tool result the model reads for a denied call of
// tool; d is the Approver's DeniedError, if it gave one.
func deniedText(tool string, d *DeniedError) string {
	switch {
	case d != nil && d.Unasked != "":
		return d.Unasked
	case d != nil:
		return entries.DeniedText(tool, d.Reason)
	}
	return entries.DeniedText(tool, "")
}

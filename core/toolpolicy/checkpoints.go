package toolpolicy

// Checkpoints around the tool calls that can change files, so that every
// change the agent makes can be reviewed and undone (core/checkpoints,
// docs/adr/0051-checkpoints.md). Both engines ask here which calls take
// one and of which files: the built-in engine (core/agent) as it brackets
// its calls, the pi bridge's host (core/bridge) as pi's calls pass it, so
// both record alike.

import (
	"context"

	"github.com/pi-tui/pi-tui/core/checkpoints"
)

// Checkpointer records the state a tool call starts from, so that what it
// changed can be told afterwards. A runtime's is its session's recorder
// (Checkpoints adapts one); tests give their own. It is called from
// concurrent calls (pi runs a message's tool calls at once).
type Checkpointer interface {
	Before(ctx context.Context, c checkpoints.Call) Checkpoint
}

// Checkpoint is one call's state before it ran; After records what the
// call changed since and returns it, for the call's ToolEnded event.
type Checkpoint interface {
	After(ctx context.Context) checkpoints.Result
}

// Checkpoints adapts a checkpoint recorder to a Checkpointer; nil gives
// nil (no checkpoints).
func Checkpoints(r *checkpoints.Recorder) Checkpointer {
	if r == nil {
		return nil
	}
	return recorder{r}
}

type recorder struct{ r *checkpoints.Recorder }

// Before returns the recorder's mark; a nil one still answers After (with
// nothing), so no caller has to tell the two apart.
func (r recorder) Before(ctx context.Context, c checkpoints.Call) Checkpoint {
	return r.r.Before(ctx, c)
}

// readOnlyTools change no files, so they take no checkpoint.
var readOnlyTools = map[string]bool{"read": true, "grep": true, "find": true, "ls": true, ToolRemember: true}

// CheckpointPaths says whether a call of tool takes a checkpoint and of
// which files. write and edit change their target only: canon, the path
// confinement gave ("" when it refused the path, and the tool with it:
// no checkpoint). Every other tool but the read-only ones (read, grep,
// find, ls, remember) may change any file: bash, the tools extensions
// add, pi's codemode; nil paths, and the project is walked.
func CheckpointPaths(tool, canon string) (paths []string, ok bool) {
	switch {
	case readOnlyTools[tool]:
		return nil, false
	case tool == "write" || tool == "edit":
		if canon == "" {
			return nil, false
		}
		return []string{canon}, true
	}
	return nil, true
}

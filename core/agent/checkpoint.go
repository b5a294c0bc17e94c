package agent

import (
	"context"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// noCheckpoint is the checkpoint of a call that takes none.
type noCheckpoint struct{}

func (noCheckpoint) After(context.Context) checkpoints.Result { return checkpoints.Result{} }

// checkpoint takes the checkpoint of call c, issued by the assistant
// entry entry, about to run with target as its path argument.
func (a *Agent) checkpoint(ctx context.Context, c ToolCall, entry, target string) toolpolicy.Checkpoint {
	if a.cfg.Checkpoints == nil {
		return noCheckpoint{}
	}
	var canon string
	if target != "" {
		if pl, err := a.cfg.Folders.Resolve(target); err == nil {
			canon = pl.Canon
		}
	}
	paths, ok := toolpolicy.CheckpointPaths(c.Name, canon)
	if !ok {
		return noCheckpoint{}
	}
	return a.cfg.Checkpoints.Before(ctx, checkpoints.Call{ToolCallID: c.ID, Tool: c.Name, Entry: entry, Paths: paths})
}

package bridge

import (
	"context"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Checkpoints of pi's tool calls, taken at the bridge's boundaries: Before
// when tool_call lets a call run, After at its tool_result (the host
// answers before pi goes on, so the files are as the tool left them), the
// result kept until the call's ToolEnded asks for it (ToolChanges).
//
// pi runs a message's tool calls at once (their tool_call hooks one by
// one, then the tools together, their tool_result hooks in the order they
// end), so marks are kept per tool call id. A call blocked here never
// gets a mark; one whose tool_result never comes (pi died, an abort, a
// later extension blocked it) keeps its mark until Close or until
// maxPendingCheckpoints newer ones push it out.

// maxPendingCheckpoints bounds the marks (and the results) kept at once:
// far more than one message's tool calls, few enough that a long-lived
// runtime whose calls never end holds little.
const maxPendingCheckpoints = 256

// pending holds values per tool call id, the oldest dropped past the
// bound.
type pending[V any] struct {
	byID  map[string]V
	order []string // ids in the order they were put; may hold ids taken since
}

func (p *pending[V]) put(id string, v V) {
	if p.byID == nil {
		p.byID = map[string]V{}
	}
	if _, ok := p.byID[id]; !ok {
		p.order = append(p.order, id)
	}
	p.byID[id] = v
	for len(p.byID) > maxPendingCheckpoints {
		old := p.order[0]
		p.order = p.order[1:]
		delete(p.byID, old)
	}
	if len(p.order) > 2*maxPendingCheckpoints {
		// Ids taken long ago: compact the order to the ones still held.
		kept := p.order[:0]
		for _, id := range p.order {
			if _, ok := p.byID[id]; ok {
				kept = append(kept, id)
			}
		}
		p.order = kept
	}
}

func (p *pending[V]) take(id string) (V, bool) {
	v, ok := p.byID[id]
	delete(p.byID, id)
	return v, ok
}

// checkpointBefore takes the checkpoint of a call tool_call lets run;
// canon is its confined target ("" for a tool without one).
func (d *Decisions) checkpointBefore(ctx context.Context, req ToolCallRequest, canon string) {
	if d.deps.Checkpoints == nil {
		return
	}
	paths, ok := toolpolicy.CheckpointPaths(req.ToolName, canon)
	if !ok {
		return
	}
	mark := d.deps.Checkpoints.Before(ctx, checkpoints.Call{ToolCallID: req.ToolCallID, Tool: req.ToolName, Entry: req.LeafID, Paths: paths})
	d.mu.Lock()
	d.marks.put(req.ToolCallID, mark)
	d.mu.Unlock()
}

// checkpointAfter records what the call changed, at its tool_result. A
// request cut short (the channel broke) still records: the tool ran.
func (d *Decisions) checkpointAfter(ctx context.Context, toolCallID string) {
	d.mu.Lock()
	mark, ok := d.marks.take(toolCallID)
	d.mu.Unlock()
	if !ok {
		return
	}
	res := mark.After(context.WithoutCancel(ctx))
	d.mu.Lock()
	d.ends.put(toolCallID, res)
	d.mu.Unlock()
}

// ToolChanges returns the files a tool call changed, as its checkpoint
// recorded them, and a note of what it could not see or keep, for the
// engine's ToolEnded event; nothing for a call that took no checkpoint.
// Asked once, when the call's end is published: the result goes then.
func (d *Decisions) ToolChanges(toolCallID string) ([]events.FileChange, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	res, _ := d.ends.take(toolCallID)
	return res.Changes, res.Note
}

package agent

import (
	"context"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// delivery is what a file tool's result carries of the instructions in
// effect (toolpolicy.DecideDelivery), as the built-in engine stores it.
type delivery struct {
	block  string
	record entries.DeliveryRecord
	info   *events.Delivery
}

// deliver is the built-in engine's call of DecideDelivery, over its own
// session's branch and turn budget.
func (a *Agent) deliver(ctx context.Context, c ToolCall, res ToolResult, pre *PreflightInfo, claim toolpolicy.Claim) delivery {
	if a.cfg.Preflight == nil {
		// no host to ask: nothing to say about this path
		return delivery{record: entries.DeliveryRecord{Kind: entries.CustomSubdirContext, ToolCallID: c.ID}}
	}
	a.mu.Lock()
	turn := a.turnBytes
	a.mu.Unlock()
	// Tools of one turn run one after another, so the budget read here is
	// still the turn's when it is written back.
	d := toolpolicy.DecideDelivery(ctx, toolpolicy.DeliveryInput{Tool: c.Name, Path: res.Path, FullRead: res.FullRead, Wrote: res.Wrote, Pre: pre, Claim: claim,
		Window: toolpolicy.Window(a.cfg.Session.Path()), TurnBytes: &turn, ContextFile: a.cfg.Preflight.ContextFile})
	a.mu.Lock()
	a.turnBytes = turn
	a.mu.Unlock()
	d.Record.ToolCallID = c.ID
	return delivery{block: d.Block, record: d.Record, info: d.Info}
}

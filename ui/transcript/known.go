package transcript

import (
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
)

// What a stored tool result's entry does not hold. pi stores its tool
// results as its own messages: no time, no preflight, and the delivery
// record the bridge writes names the call, not the result. A transcript
// reread from pi's file (its appends arrive as the turn ends) would lose
// what the live events said; these fill it back in.

// endedCall is a call's live end, and whether its memory change was
// undone since.
type endedCall struct {
	Result
	undone bool
}

// known is shared by the tool items of one reading of a branch.
type known struct {
	// ended are the calls this program saw end, by call id: their live
	// details (time, preflight, delivery, memory change) as the events
	// said them.
	ended map[string]*endedCall
	// byCall are delivery records that name their call only (the pi
	// bridge's).
	byCall map[string]*entries.DeliveryRecord
}

// fill completes a decoded tool item: what its entry lacks comes from its
// live end, else (the delivery) from a record naming its call. What the
// entry holds wins: the built-in engine stores the same details.
func (k *known) fill(it *item) {
	if k == nil || it.callID == "" {
		return
	}
	if r := k.ended[it.callID]; r != nil {
		if it.toolMs == 0 {
			it.toolMs = r.ToolMs
		}
		if it.pre == nil {
			it.pre = r.Preflight
		}
		if it.path == "" {
			it.path = r.Path
		}
		if it.delivery == nil {
			it.delivery = r.Delivery
		}
		if it.change == nil && r.Change != nil {
			it.change, it.undone = r.Change, r.undone
		}
	}
	if it.delivery == nil {
		if rec := k.byCall[it.callID]; rec != nil {
			it.delivery = deliveryOf(rec)
		}
	}
}

// deliveryOf is what a stored delivery record says of a result's
// instructions, nil when it delivered and deferred nothing (a record of a
// changed chain alone, whose call showed no instructions when it ran).
func deliveryOf(r *entries.DeliveryRecord) *events.Delivery {
	if len(r.Delivered) == 0 && len(r.Deferred) == 0 {
		return nil
	}
	d := &events.Delivery{Chain: r.Labels, Deferred: r.Deferred}
	for _, f := range r.Delivered {
		d.Delivered = append(d.Delivered, events.DeliveredFile{Label: f.Label, Bytes: f.Bytes, Truncated: f.Truncated, Via: f.Via})
	}
	return d
}

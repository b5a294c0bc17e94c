package bridge

import (
	"context"
	"time"
)

// Sent is what pi sent the model, as the bridge last reported it (the
// sent method): the system prompt and the tools the request declared. It
// is pi's own account, so /context shows what pi sends, not what pi-tui
// would send in its place (docs/adr/0069).
type Sent struct {
	SentRequest
	// At is when the host was told.
	At time.Time
	// Added is the text pi-tui's system answer had the bridge append to
	// pi's prompt for that request ("" for none), so the prompt can be
	// shown as pi's part and pi-tui's.
	Added string
}

// Sent implements SentHost: it keeps the report, with the system text
// answered last, and hands it to Deps.Sent.
func (d *Decisions) Sent(_ context.Context, req SentRequest) error {
	d.mu.Lock()
	s := Sent{SentRequest: req, At: time.Now(), Added: d.added}
	if req.Pending {
		s.Added = ""
	}
	d.sent = &s
	d.mu.Unlock()
	if d.deps.Sent != nil {
		d.deps.Sent(s)
	}
	return nil
}

// LastSent returns what pi last reported it sent, if anything.
func (d *Decisions) LastSent() (Sent, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sent == nil {
		return Sent{}, false
	}
	return *d.sent, true
}

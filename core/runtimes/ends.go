package runtimes

import (
	"sync"
	"sync/atomic"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
)

// Every Prompt ends with one agent_end and every Compact with one
// compaction_end, whatever refused or broke it (ADR 0084): a front end
// ends its turn on that event alone, and a script reading rpc or prompt
// --json waits for it. The engines say most ends themselves; the manager
// counts, per session, the ends published, and a call that returns
// without one says it, with its error (a runtime that could not be
// prepared, a pi busy with another program's call, nothing to compact).

// endKind is the event that ends a kind of call.
type endKind uint8

const (
	promptEnd  endKind = iota // events.AgentEnded
	compactEnd                // events.CompactionEnded
)

// turnEnds counts, per session and kind, the ends published.
type turnEnds struct{ counts sync.Map }

// count is the number of ends of kind published for the session so far.
func (t *turnEnds) count(sessionID string, kind endKind) *atomic.Uint64 {
	type key struct {
		sid  string
		kind endKind
	}
	c, _ := t.counts.LoadOrStore(key{sessionID, kind}, new(atomic.Uint64))
	return c.(*atomic.Uint64)
}

// note counts e if it ends a call; emit calls it for every event.
func (t *turnEnds) note(e events.Event) {
	switch e.(type) {
	case events.AgentEnded:
		t.count(e.Session(), promptEnd).Add(1)
	case events.CompactionEnded:
		t.count(e.Session(), compactEnd).Add(1)
	}
}

// ended is deferred by Prompt and Compact with the count when they
// began: when no end of their kind was published since, it publishes
// one, with *err (summary for a compaction that succeeded unsaid).
func (m *Manager) ended(sessionID string, kind endKind, before uint64, err *error, summary *string) {
	if m.ends.count(sessionID, kind).Load() != before {
		return
	}
	msg := ""
	if *err != nil {
		msg = (*err).Error()
	}
	if kind == compactEnd {
		e := events.CompactionEnded{SessionID: sessionID, Error: msg}
		if msg == "" && summary != nil {
			e.Summary = *summary
		}
		m.emit(e)
		return
	}
	stop := provider.StopEnd
	if msg != "" {
		stop = provider.StopError
	}
	m.emit(events.AgentEnded{SessionID: sessionID, Error: msg, StopReason: stop})
}

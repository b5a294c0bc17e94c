package runtimes

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
)

// closeRecorder is an engine whose Close is all that counts here.
type closeRecorder struct {
	engine.Engine
	log *[]string
}

func (c closeRecorder) Close() error { *c.log = append(*c.log, "closed"); return nil }

// Whatever path releases the manager's lock, what was queued under it
// leaves: the retired engines close first, then the events go, in the
// order they were noted, and none of it while the lock is held.
func TestReleasingTheLockSendsWhatWasQueued(t *testing.T) {
	var l managerLock
	var log []string
	l.emit = func(e events.Event) {
		if !l.mu.TryLock() {
			t.Error("an event went out under the lock")
		} else {
			l.mu.Unlock()
		}
		log = append(log, e.(events.RuntimeRetired).Reason)
	}
	l.Lock()
	l.send(events.RuntimeRetired{Reason: "one"})
	l.close(closeRecorder{log: &log})
	l.send(events.RuntimeRetired{Reason: "two"})
	l.Unlock()
	if got := len(log); got != 3 || log[0] != "closed" || log[1] != "one" || log[2] != "two" {
		t.Fatalf("after the release: %v; want closed, one, two", log)
	}
	// The release emptied the queue: the next sends nothing again.
	l.Lock()
	left := len(l.events) + len(l.engines)
	l.Unlock()
	if left != 0 || len(log) != 3 {
		t.Errorf("after a second release: %d still queued, sent %v", left, log[3:])
	}
}

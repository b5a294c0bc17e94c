package runtimes

import (
	"sync"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
)

// managerLock is the manager's mutex. Some of what is decided under it
// must not be done under it: publishing an event (a slow reader, a
// blocked stdout) and closing a retired engine (a process that takes its
// time to end) would hold the manager. Those queue in the lock and leave
// when it is released. Unlock is the only way to release it, so no path
// can release the lock and forget them (ADR 0084).
type managerLock struct {
	mu      sync.Mutex
	events  []events.Event  // sent, in order, after the release
	engines []engine.Engine // closed after the release, before the events go
	emit    func(events.Event)
}

func (l *managerLock) Lock() { l.mu.Lock() }

// Unlock releases the lock, then closes the engines and sends the events
// queued under it.
func (l *managerLock) Unlock() {
	evs, engines := l.events, l.engines
	l.events, l.engines = nil, nil
	l.mu.Unlock()
	for _, e := range engines {
		e.Close()
	}
	for _, e := range evs {
		l.emit(e)
	}
}

// send queues an event for the release; called with the lock held.
func (l *managerLock) send(e events.Event) { l.events = append(l.events, e) }

// close queues an engine to close at the release; called with the lock
// held.
func (l *managerLock) close(e engine.Engine) { l.engines = append(l.engines, e) }

package runtimes

import (
	"context"
	"errors"
	"strings"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
)

// Retuning: a runtime whose engine can take another model or thinking
// level in place (engine.Retuner) keeps running when only those changed,
// instead of being retired and launched again (ADR 0067).

// inPlace reports whether a runtime launched as old can become one
// launched as cur by changing only what a Retuner takes in place: the
// model (with the key source another provider brings along) and the
// thinking level. Anything else (the root and its chain, memory, trust,
// tools, permission, settings, the engine) still needs a new runtime.
func (m *Manager) inPlace(old, cur Spec) bool {
	if old.Model == cur.Model && old.Thinking == cur.Thinking {
		return false
	}
	same := cur
	same.Model, same.Thinking = old.Model, old.Thinking
	if providerOf(old.Model) != providerOf(cur.Model) {
		same.KeyTag = old.KeyTag
	}
	return same.Fingerprint(m.seed) == old.Fingerprint(m.seed)
}

func providerOf(model string) string {
	p, _, _ := strings.Cut(model, "/")
	return p
}

// retune asks rt's engine to take b's model and thinking level. It is
// called with m.mu held, rt idle and installed, and no launch of its
// session under way; it releases m.mu while the engine works (the
// session counts as launching meanwhile, so other preparations wait) and
// returns with m.mu released. On success rt carries b's spec and, for a
// prompt (reserve), runtime_reused says what changed in place. ok false
// means the engine could not: rt was retired with the change's reason and
// the caller prepares again, launching a new one.
func (m *Manager) retune(ctx context.Context, rt *Runtime, r engine.Retuner, b built, fp string, reserve bool) (ok bool, err error) {
	sid := rt.Session.ID()
	done := make(chan struct{})
	m.launching[sid] = done
	rt.reserved = true // no idle timer, cap or watcher retires it meanwhile
	old := rt.Spec
	m.mu.Unlock()
	err = r.Retune(ctx, b.model)
	m.mu.Lock()
	delete(m.launching, sid)
	close(done)
	switch {
	case m.closed:
		m.mu.Unlock()
		return false, errors.New("the runtime manager is closed")
	case m.runtimes[sid] != rt:
		m.mu.Unlock()
		return false, nil
	case err != nil || rt.dead():
		rt.reserved = false
		reason := why(old, b.spec)
		if rt.dead() {
			reason = ReasonCrashed
		}
		m.retireLocked(rt, reason)
		m.mu.Unlock()
		return false, nil
	}
	rt.Spec, rt.fp, rt.ttl, rt.reserved = b.spec, fp, b.ttl, reserve
	m.touchLocked(rt)
	if reserve {
		rt.prewarmed = false
		m.note(events.RuntimeReused{SessionID: sid, Reason: why(old, b.spec), Model: rt.Spec.Model})
	}
	m.mu.Unlock()
	return true, nil
}

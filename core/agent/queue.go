package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// Messages sent while a turn runs, as pi's rpc takes them: a steering
// message reaches the model before its next call (after the tool results
// it is waiting for), a follow-up when the model would otherwise stop.
// Both are stored as user messages when delivered, so the session reads
// as what happened; until then they are only in the queue, and a turn
// that ends early (abort, error) hands them back in Result.Unsent.

// Steer queues a message for the running turn's next model call.
func (a *Agent) Steer(text string) error { return a.enqueue(text, true) }

// FollowUp queues a message for when the running turn would end.
func (a *Agent) FollowUp(text string) error { return a.enqueue(text, false) }

func (a *Agent) enqueue(text string, steer bool) error {
	a.mu.Lock()
	if !a.prompting || a.closing {
		a.mu.Unlock()
		return engine.ErrIdle
	}
	if steer {
		a.steering = append(a.steering, text)
	} else {
		a.followUp = append(a.followUp, text)
	}
	ev := a.queueEventLocked()
	a.mu.Unlock()
	a.emit(ev)
	return nil
}

// queueEventLocked is the queue as an event.
func (a *Agent) queueEventLocked() events.QueueChanged {
	return events.QueueChanged{SessionID: a.sid(), Steering: slices.Clone(a.steering), FollowUp: slices.Clone(a.followUp)}
}

// takeQueue takes the messages due now: the steering ones, and when the
// turn would end the follow-ups too. A turn that would end and finds none
// is closing: nothing more can be queued for it.
func (a *Agent) takeQueue(ending bool) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.steering
	a.steering = nil
	if ending {
		out = append(out, a.followUp...)
		a.followUp = nil
		a.closing = len(out) == 0
	}
	return out
}

// deliverQueued stores the queued messages as user messages of the turn
// and says the queue changed.
func (a *Agent) deliverQueued(ctx context.Context, texts []string) error {
	a.mu.Lock()
	ev := a.queueEventLocked()
	a.mu.Unlock()
	a.emit(ev)
	for i, text := range texts {
		user := entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: text}}}}
		if _, err := a.cfg.Session.Append(context.WithoutCancel(ctx), sessions.TypeUser, user); err != nil {
			// What was not saved goes back, for Result.Unsent.
			a.mu.Lock()
			a.steering = append(slices.Clone(texts[i:]), a.steering...)
			a.mu.Unlock()
			return fmt.Errorf("a queued message could not be saved, so the turn stopped: %w", err)
		}
	}
	return nil
}

// queued counts the messages waiting.
func (a *Agent) queued() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steering) + len(a.followUp)
}

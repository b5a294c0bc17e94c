package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

const summarySystem = "You summarise a coding session between a user and an agent so that the work can continue " +
	"with less context. Keep: the user's goals and constraints, decisions and their reasons, files read or " +
	"changed and their current state, commands run and what they showed, and open tasks. Be concise and exact."

// ErrNothingToCompact is returned when the context holds only the current
// turn.
var ErrNothingToCompact = errors.New("nothing to compact yet: the context holds only the latest turn")

func (a *Agent) needsCompaction() bool {
	w := a.cfg.Model.ContextWindow
	if w <= 0 {
		return false
	}
	a.mu.Lock()
	u := a.usage
	a.mu.Unlock()
	used := u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
	if over, ok := a.overThreshold(used, w); ok {
		return over
	}
	return float64(used) > a.cfg.CompactAt*float64(w)
}

// Compact summarises the context before the latest turn (manual
// compaction). extra, when not empty, is added to the summary request.
func (a *Agent) Compact(parent context.Context, extra string) (string, error) {
	ctx, err := a.begin(parent)
	if err != nil {
		return "", err
	}
	defer a.end()
	err = a.compact(ctx, extra)
	if err != nil {
		return "", err
	}
	return a.lastSummary(), nil
}

func (a *Agent) lastSummary() string {
	for _, e := range a.cfg.Session.Context() {
		if e.Type == sessions.TypeCompaction {
			var c sessions.Compaction
			if json.Unmarshal(e.Payload(), &c) == nil {
				return c.Summary
			}
		}
	}
	return ""
}

// compact asks the model to summarise the entries before a kept tail (see
// keepFrom) and records a compaction entry with the
// summary, the first kept entry and the tokens before.
func (a *Agent) compact(ctx context.Context, extra string) error {
	entries := a.cfg.Session.Context()
	cut := a.keepFrom(entries)
	if cut <= 0 {
		return ErrNothingToCompact
	}
	a.emit(events.CompactionStarted{SessionID: a.sid()})
	ask := "Summarise the conversation above for the agent that continues it."
	if extra != "" {
		ask += "\n\nAlso: " + extra
	}
	msgs := append(Messages(entries[:cut]), provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: ask}}})
	res, err := a.cfg.Client.Stream(ctx, provider.Request{Model: a.cfg.Model.ID, System: summarySystem, Messages: msgs, MaxTokens: 4096},
		func(provider.Event) {})
	summary := textOf(res.Message)
	if err == nil && summary == "" {
		err = errors.New("the model returned an empty summary")
	}
	if err != nil {
		a.emit(events.CompactionEnded{SessionID: a.sid(), Error: err.Error()})
		return fmt.Errorf("compaction: %w", err)
	}
	a.mu.Lock()
	before := a.usage.InputTokens + a.usage.OutputTokens + a.usage.CacheReadTokens + a.usage.CacheWriteTokens
	a.mu.Unlock()
	c := sessions.Compaction{Summary: summary, FirstKeptEntryID: entries[cut].ID, TokensBefore: before}
	if _, err := a.cfg.Session.Append(context.WithoutCancel(ctx), sessions.TypeCompaction, c); err != nil {
		return fmt.Errorf("save the compaction: %w", err)
	}
	a.mu.Lock()
	a.usage = provider.Usage{}
	a.claims = map[claimKey]claimEntry{} // cleared before each compaction's successor calls
	a.mu.Unlock()
	a.emit(events.CompactionEnded{SessionID: a.sid(), Summary: summary})
	return nil
}

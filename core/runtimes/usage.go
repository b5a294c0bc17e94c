package runtimes

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// A session's token use as pi's footer shows it: the totals of the whole
// session (every entry of its file, as pi counts them) and how much of
// the model's context window the last answer used.

// SessionUsage is a session's token use.
type SessionUsage struct {
	Input, Output, CacheRead, CacheWrite int
	Cost                                 float64
	Context                              ContextUse
}

// ContextUse is how much of the context window the session uses. Known
// is false when the figure cannot be known: no window, no answer yet, or
// no answer since the last compaction (pi shows "?" then).
type ContextUse struct {
	Tokens, Window int
	Percent        float64
	Known          bool
}

// Usage returns a session's token use: from its live pi (get_session_stats,
// the figures pi's footer shows, its context estimate included), else
// counted from the session file as pi counts it, the context being the
// last answer's prompt and output against the runtime's context window.
// It launches nothing.
func (m *Manager) Usage(ctx context.Context, sessionID string) (SessionUsage, error) {
	if rt := m.runtimeOf(sessionID); rt != nil && rt.pi != nil && !rt.dead() {
		if u, err := piUsage(ctx, rt.pi); err == nil {
			return u, nil
		}
		// An old pi without the command, or one that just went: the file
		// says the same totals.
	}
	s, err := m.facade.Open(ctx, sessionID)
	if err != nil {
		return SessionUsage{}, err
	}
	st := s.Stats()
	u := SessionUsage{Input: int(st.Tokens.Input), Output: int(st.Tokens.Output), CacheRead: int(st.Tokens.CacheRead), CacheWrite: int(st.Tokens.CacheWrite), Cost: st.Cost}
	u.Context.Window = m.ContextWindow(sessionID)
	if n, ok := lastContext(s.Path()); ok && u.Context.Window > 0 {
		u.Context.Tokens, u.Context.Known = n, true
		u.Context.Percent = float64(n) * 100 / float64(u.Context.Window)
	}
	return u, nil
}

// piUsage asks pi for its session stats.
func piUsage(ctx context.Context, run process) (SessionUsage, error) {
	data, err := run.Call(ctx, "get_session_stats", nil)
	if err != nil {
		return SessionUsage{}, err
	}
	var st struct {
		Tokens struct {
			Input, Output, CacheRead, CacheWrite int
		}
		Cost         float64
		ContextUsage *struct {
			Tokens        *int
			ContextWindow int
			Percent       *float64
		}
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return SessionUsage{}, fmt.Errorf("pi's get_session_stats answer could not be read: %v", err)
	}
	u := SessionUsage{Input: st.Tokens.Input, Output: st.Tokens.Output, CacheRead: st.Tokens.CacheRead, CacheWrite: st.Tokens.CacheWrite, Cost: st.Cost}
	if c := st.ContextUsage; c != nil {
		u.Context.Window = c.ContextWindow
		if c.Tokens != nil && c.Percent != nil {
			u.Context.Tokens, u.Context.Percent, u.Context.Known = *c.Tokens, *c.Percent, true
		}
	}
	return u, nil
}

// lastContext is the context the last answer on the branch used (its
// prompt, cache and output), unless a compaction came after it: that
// answer's size says nothing of the compacted context.
func lastContext(path []sessions.Entry) (int, bool) {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i].Type {
		case sessions.TypeCompaction:
			return 0, false
		case sessions.TypeAssistant:
			var a struct {
				Usage      *provider.Usage `json:"usage"`
				StopReason string          `json:"stopReason"`
			}
			if json.Unmarshal(path[i].Payload(), &a) != nil || a.Usage == nil {
				continue
			}
			n := a.Usage.InputTokens + a.Usage.OutputTokens + a.Usage.CacheReadTokens + a.Usage.CacheWriteTokens
			if n > 0 && a.StopReason != provider.StopError && a.StopReason != provider.StopAborted {
				return n, true
			}
		}
	}
	return 0, false
}

package piengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pi-tui/pi-tui/core/provider"
)

// Retune: pi changes its model and thinking level in place, over its own
// RPC (set_model, set_thinking_level), as its /model and shift+tab do in
// a terminal: no node restart, and pi records the change in its session
// file (model_change, thinking_level_change) itself.

// tuning is the model and thinking level pi runs with, as pi-tui last
// asked for them (at launch, then by Retune).
type tuning struct {
	provider, model, thinking string
}

// Retune implements engine.Retuner: set_model when the model is another
// (its context window is taken from pi's answer), then set_thinking_level
// when the level is another or the model changed (pi keeps, or clamps, the
// level across a model change). A level of "" (the session's or pi's own,
// which only a launch can ask for) or a model without a provider is
// refused before pi is asked anything.
func (c *core) Retune(ctx context.Context, m provider.Model) error {
	if m.Provider == "" || m.ID == "" {
		return errors.New("pi can switch only to a model named with its provider")
	}
	if m.Thinking == "" {
		return errors.New("pi can switch only to a thinking level that is named")
	}
	if err := c.hold(false); err != nil {
		return err
	}
	defer c.unhold()
	c.mu.Lock()
	cur := c.tuned
	c.mu.Unlock()
	moved := cur.provider != m.Provider || cur.model != m.ID
	if moved {
		data, err := c.rpc.Call(ctx, "set_model", map[string]string{"provider": m.Provider, "modelId": m.ID})
		if err != nil {
			return fmt.Errorf("pi did not switch to %s/%s: %w", m.Provider, m.ID, err)
		}
		var got struct {
			ContextWindow int `json:"contextWindow"`
		}
		_ = json.Unmarshal(data, &got)
		c.mu.Lock()
		c.tuned.provider, c.tuned.model = m.Provider, m.ID
		if got.ContextWindow > 0 {
			c.window = got.ContextWindow
		}
		c.mu.Unlock()
	}
	if moved || cur.thinking != m.Thinking {
		if _, err := c.rpc.Call(ctx, "set_thinking_level", map[string]string{"level": m.Thinking}); err != nil {
			return fmt.Errorf("pi did not switch to thinking level %s: %w", m.Thinking, err)
		}
		c.mu.Lock()
		c.tuned.thinking = m.Thinking
		c.mu.Unlock()
	}
	return nil
}

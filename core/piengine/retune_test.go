package piengine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// Retune switches the running pi: set_model to a model of its catalogue
// (the context window follows), set_thinking_level to a named level;
// get_state then reports both. A model pi does not have is pi's error; a
// level left to the default, or a model without a provider, is refused
// before pi is asked.
func TestRetuneSwitchesTheRunningPi(t *testing.T) {
	r := launch(t, &fakepi.Script{Models: []fakepi.Model{
		{Provider: "fake", ID: "m1", Reasoning: true, ContextWindow: 200000},
		{Provider: "fake", ID: "m2", Reasoning: true, ContextWindow: 64000},
	}}, nil, func(c *Config) { c.Provider, c.Model, c.Thinking = "fake", "m1", "low" })
	ctx := context.Background()
	if err := r.e.Retune(ctx, provider.Model{Provider: "fake", ID: "m2", Thinking: "high"}); err != nil {
		t.Fatal(err)
	}
	data, err := r.e.Call(ctx, "get_state", nil)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Model         struct{ Provider, ID string }
		ThinkingLevel string
	}
	json.Unmarshal(data, &st)
	if st.Model.Provider != "fake" || st.Model.ID != "m2" || st.ThinkingLevel != "high" {
		t.Errorf("get_state after Retune = %+v", st)
	}
	if w := r.e.ContextWindow(); w != 64000 {
		t.Errorf("context window = %d, want m2's 64000", w)
	}
	if err := r.e.Retune(ctx, provider.Model{Provider: "fake", ID: "gone", Thinking: "high"}); err == nil || !strings.Contains(err.Error(), "Model not found: fake/gone") {
		t.Errorf("a model pi does not have: %v", err)
	}
	for _, m := range []provider.Model{{Provider: "fake", ID: "m1"}, {ID: "m1", Thinking: "low"}} {
		if err := r.e.Retune(ctx, m); err == nil {
			t.Errorf("Retune(%+v) was asked of pi", m)
		}
	}
}

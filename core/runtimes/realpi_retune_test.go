package runtimes

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

// With the real pi 1.x (PI_TUI_PI; skipped without it): a thinking level
// chosen after a prompt, then a model, go to the pi that runs. The same
// process answers the next prompt, no runtime is launched or retired
// (runtime_reused says what changed), and the model request carries the
// new reasoning effort, then goes to the new model.
func TestRealPiTakesThinkingAndModelInPlace(t *testing.T) {
	r := realPiRig(t, finished)
	prompt := r.tuned(t)
	last := func() map[string]any {
		reqs := r.fake.Requests()
		if len(reqs) == 0 {
			t.Fatal("pi sent the model nothing")
		}
		return reqs[len(reqs)-1].Body
	}
	if l := find[events.RuntimeLaunched](prompt("fake/m1:low")); len(l) != 1 || l[0].Engine != "pi" {
		t.Fatalf("first prompt: launched %+v, want one pi", l)
	}
	first := r.pid(r.sid)
	if b := last(); b["model"] != "m1" || b["reasoning_effort"] != "low" {
		t.Fatalf("first request: model %v, reasoning_effort %v", b["model"], b["reasoning_effort"])
	}

	for _, step := range []struct{ spec, reason, model, effort string }{
		{"fake/m1:high", ReasonThinkingChanged, "m1", "high"},
		{"fake/m2:off", ReasonModelChanged, "m2", ""},
	} {
		evs := prompt(step.spec)
		if l, x := find[events.RuntimeLaunched](evs), find[events.RuntimeRetired](evs); len(l) != 0 || len(x) != 0 {
			t.Errorf("%s: launched %+v, retired %+v; want pi changed in place", step.spec, l, x)
		}
		if u := find[events.RuntimeReused](evs); len(u) != 1 || u[0].Reason != step.reason {
			t.Errorf("%s: runtime_reused = %+v, want one with reason %s", step.spec, u, step.reason)
		}
		if got := r.pid(r.sid); got != first || got == 0 {
			t.Errorf("%s: pi %d answered, want the first one, %d", step.spec, got, first)
		}
		b := last()
		effort, _ := b["reasoning_effort"].(string)
		if b["model"] != step.model || effort != step.effort {
			t.Errorf("%s: the request went to %v with reasoning_effort %q, want %s with %q", step.spec, b["model"], effort, step.model, step.effort)
		}
	}
}

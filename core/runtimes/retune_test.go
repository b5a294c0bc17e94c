package runtimes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// tunedModels is a models.json for the rig's fake model server: m1
// reasons, m2 does not, m3 is one pi's catalogue (the fake pi's script)
// does not have.
func tunedModels(url string) string {
	return fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"FAKE_API_KEY","models":[
		{"id":"m1","reasoning":true,"contextWindow":200000,"maxTokens":4096},
		{"id":"m2","contextWindow":100000,"maxTokens":4096},
		{"id":"m3","contextWindow":100000,"maxTokens":4096}]}}}`, url)
}

// tuned writes tunedModels into the rig's agent dir and returns a prompt
// of the rig's session with a model spec, which returns the events it
// published.
func (r *rig) tuned(t *testing.T) func(spec string) []events.Event {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.h.Places.AgentDir, "models.json"), []byte(tunedModels(r.fake.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(spec string) []events.Event {
		t.Helper()
		if _, err := r.m.Prompt(context.Background(), r.sid, spec, "hello"); err != nil {
			t.Fatalf("prompt with %s: %v", spec, err)
		}
		return r.take()
	}
}

// pid is the process id of the session's live pi (0 for none).
func (r *rig) pid(sid string) int {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	if rt := r.m.runtimes[sid]; rt != nil && rt.pi != nil && !rt.pi.Dead() {
		return pidOf(rt.pi)
	}
	return 0
}

// On the pi engine a thinking level or model chosen between prompts goes
// to the running pi (set_thinking_level, set_model): the same process
// answers, runtime_reused says what changed, nothing is launched or
// retired, and the context window follows the new model. A model pi
// cannot switch to retires it instead and launches a new one, with the
// reason.
func TestPiTakesThinkingAndModelInPlace(t *testing.T) {
	log := filepath.Join(t.TempDir(), "pi.log")
	r := newPiRig(t, fakepi.Script{Models: []fakepi.Model{
		{Provider: "fake", ID: "m1", Reasoning: true, ContextWindow: 200000},
		{Provider: "fake", ID: "m2", ContextWindow: 100000},
	}}, func(o *Options) { o.PiEnv = append(o.PiEnv, "FAKEPI_LOG="+log) })
	prompt := r.tuned(t)
	prompt("fake/m1:low")
	first := r.pid(r.sid)
	if first == 0 {
		t.Fatal("no pi runs after the first prompt")
	}

	for _, step := range []struct{ spec, reason, logged string }{
		{"fake/m1:high", ReasonThinkingChanged, "set_thinking_level high"},
		{"fake/m2:off", ReasonModelChanged, "set_model fake/m2"},
	} {
		evs := prompt(step.spec)
		if l, x := find[events.RuntimeLaunched](evs), find[events.RuntimeRetired](evs); len(l) != 0 || len(x) != 0 {
			t.Errorf("%s: launched %+v, retired %+v; want pi changed in place", step.spec, l, x)
		}
		if u := find[events.RuntimeReused](evs); len(u) != 1 || u[0].Reason != step.reason {
			t.Errorf("%s: runtime_reused = %+v, want one with reason %s", step.spec, u, step.reason)
		}
		if got := r.pid(r.sid); got != first {
			t.Errorf("%s: pi %d answered, want the first one, %d", step.spec, got, first)
		}
		if count(t, log, step.logged) != 1 {
			t.Errorf("%s: pi was not asked %q", step.spec, step.logged)
		}
	}
	if w := r.m.ContextWindow(r.sid); w != 100000 {
		t.Errorf("context window after the switch to m2 = %d, want m2's 100000", w)
	}

	evs := prompt("fake/m3:off")
	if x := find[events.RuntimeRetired](evs); len(x) != 1 || x[0].Reason != ReasonModelChanged {
		t.Errorf("a model pi does not have: retired %+v", x)
	}
	if l := find[events.RuntimeLaunched](evs); len(l) != 1 || l[0].Reason != ReasonModelChanged || l[0].Model != "fake/m3" {
		t.Errorf("a model pi does not have: launched %+v", l)
	}
	if got := r.pid(r.sid); got == first || got == 0 {
		t.Errorf("pi %d runs after the relaunch (the first was %d)", got, first)
	}
}

// The files beside a runtime being written without a change (the
// watcher's check) do not retire one that runs with a thinking level
// other than the default: the check compares the chain and the memory,
// not the level.
func TestUnchangedContextKeepsTheRuntimesThinkingLevel(t *testing.T) {
	r := newRig(t, readThenAnswer, nil)
	prompt := r.tuned(t)
	prompt("fake/m1:high")
	r.m.contextChanged(changes{files: map[string]bool{filepath.Join(r.root, "AGENTS.md"): true}, memory: true})
	if x := find[events.RuntimeRetired](r.take()); len(x) != 0 {
		t.Errorf("the check retired the runtime: %+v", x)
	}
}

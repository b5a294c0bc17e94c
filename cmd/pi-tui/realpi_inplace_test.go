package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// Over one `pi-tui rpc --engine pi`: set_thinking_level, then set_model,
// each followed by a prompt. The real pi takes both in place: no
// runtime_launched or runtime_retired, a runtime_reused with reason
// thinking-changed, then model-changed, and the model requests carry the
// new level, then go to the new model.
func TestRealPiRPCThinkingAndModelInPlace(t *testing.T) {
	c := realPiCLI(t)
	fake, _ := realPiProject(t, c, true, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	writeFile(t, filepath.Join(c.env["HOME"], ".pi", "agent", "models.json"), fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,
		"api":"openai-completions","apiKey":"FAKE_API_KEY","models":[{"id":"m1","reasoning":true,"contextWindow":200000,"maxTokens":4096},
		{"id":"m2","contextWindow":100000,"maxTokens":4096}]}}}`, fake.URL))
	r := startRPC(t, c, "--project", "mono", "--engine", "pi")
	launchedPi(t, r.prompt("one"))
	for _, step := range []struct{ cmd, reason, model, effort string }{
		{`{"id":"t","type":"set_thinking_level","level":"high"}`, "thinking-changed", "m1", "high"},
		{`{"id":"m","type":"set_model","model":"fake/m2"}`, "model-changed", "m2", ""},
	} {
		r.send(step.cmd)
		r.until(func(m map[string]any) bool { return m["type"] == "response" })
		evs := r.prompt("again")
		if l, x := typed(evs, "runtime_launched"), typed(evs, "runtime_retired"); len(l) != 0 || len(x) != 0 {
			t.Errorf("%s: launched %v, retired %v; want pi changed in place", step.reason, l, x)
		}
		if !hasReason(evs, "runtime_reused", step.reason) {
			t.Errorf("no runtime_reused with reason %s: %v", step.reason, typed(evs, "runtime_reused"))
		}
		reqs := fake.Requests()
		last := reqs[len(reqs)-1]
		if e, _ := effort(last).(string); last.Body["model"] != step.model || e != step.effort {
			t.Errorf("%s: the request went to %v with reasoning_effort %q, want %s with %q", step.reason, last.Body["model"], e, step.model, step.effort)
		}
	}
}

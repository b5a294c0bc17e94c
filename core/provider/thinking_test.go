package provider

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestThinkingLevelHelpers(t *testing.T) {
	for spec, want := range map[string][2]string{
		"anthropic/claude-sonnet-5-5:high": {"anthropic/claude-sonnet-5-5", "high"},
		"ollama/qwen3:8b":                  {"ollama/qwen3:8b", ""},
		"ollama/qwen3:8b:OFF":              {"ollama/qwen3:8b", "off"},
		":xhigh":                           {"", "xhigh"},
		"openai/gpt:max":                   {"openai/gpt", "xhigh"},
		"":                                 {"", ""},
	} {
		if m, l := SplitThinking(spec); m != want[0] || l != want[1] {
			t.Errorf("SplitThinking(%q) = %q, %q", spec, m, l)
		}
	}
	if _, err := ParseThinkingLevel("ultra"); err == nil || !strings.Contains(err.Error(), "off, minimal, low, medium, high or xhigh") {
		t.Errorf("ParseThinkingLevel: %v", err)
	}
	levels := []string{"off", "low", "medium", "high"}
	for want, got := range map[string]string{
		"low": ClampThinking(levels, "minimal"), "high": ClampThinking(levels, "xhigh"), "medium": ClampThinking(levels, "medium"),
		"minimal": ClampThinking([]string{"minimal", "low"}, "off"),
	} {
		if want != got {
			t.Errorf("clamp: got %q, want %q", got, want)
		}
	}
	if NextThinking(levels, "high") != "off" || NextThinking(levels, "minimal") != "medium" || NextThinking([]string{"off"}, "off") != "off" {
		t.Error("NextThinking")
	}
}

// thinkingRig points a built-in provider at a test server that answers
// every request, and returns the bodies it received.
func thinkingRig(t *testing.T, provider, api, env, settings string) (dir string, srv *server) {
	t.Helper()
	srv = newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { writeOK(api, w) })
	dir = t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"`+provider+`":{"baseUrl":"`+srv.URL+`","apiKey":"k"},
		"local":{"baseUrl":"`+srv.URL+`","api":"`+api+`","models":[{"id":"plain"},{"id":"thinker","reasoning":true,"thinkingLevelMap":{"high":"max"}}]}}}`)
	if settings != "" {
		writeFile(t, dir, "settings.json", settings)
	}
	return dir, srv
}

// bodyAt resolves spec, makes one call with maxTokens and returns what
// the server was sent, with the resolved model.
func bodyAt(t *testing.T, dir string, srv *server, spec string, maxTokens int) (map[string]any, Model) {
	t.Helper()
	c, m, err := Resolve(dir, envOf(nil), spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := collect(t, context.Background(), c, Request{Model: m.ID, Messages: simpleRequest().Messages, MaxTokens: maxTokens}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	return reqs[len(reqs)-1].body, m
}

// TestThinkingAnthropic: budget models get thinking enabled with pi's
// budgets and max_tokens raised to fit; adaptive models an effort, or
// thinking disabled at off; a model that always thinks clamps off up.
func TestThinkingAnthropic(t *testing.T) {
	dir, srv := thinkingRig(t, "anthropic", APIAnthropicMessages, "", "")
	b, m := bodyAt(t, dir, srv, "anthropic/claude-haiku-4-5:high", 4096)
	jsonEqual(t, "haiku high", b["thinking"], `{"type":"enabled","budget_tokens":16384}`)
	jsonEqual(t, "max_tokens raised", b["max_tokens"], `20480`)
	if m.Thinking != "high" {
		t.Errorf("model = %+v", m)
	}
	b, _ = bodyAt(t, dir, srv, "anthropic/claude-haiku-4-5:minimal", 64000)
	jsonEqual(t, "haiku minimal at the model's limit", b["thinking"], `{"type":"enabled","budget_tokens":1024}`)
	jsonEqual(t, "max_tokens capped", b["max_tokens"], `64000`)
	b, m = bodyAt(t, dir, srv, "anthropic/claude-haiku-4-5:xhigh", 4096)
	jsonEqual(t, "xhigh clamps to high", b["thinking"], `{"type":"enabled","budget_tokens":16384}`)
	if m.Thinking != "high" {
		t.Errorf("xhigh on haiku = %q", m.Thinking)
	}
	b, _ = bodyAt(t, dir, srv, "anthropic/claude-haiku-4-5:off", 4096)
	if _, ok := b["thinking"]; ok || b["max_tokens"] != float64(4096) {
		t.Errorf("off: %v", b)
	}
	b, _ = bodyAt(t, dir, srv, "anthropic/claude-sonnet-5-5:medium", 0)
	jsonEqual(t, "adaptive", b["thinking"], `{"type":"adaptive","display":"summarized"}`)
	jsonEqual(t, "effort", b["output_config"], `{"effort":"medium"}`)
	b, _ = bodyAt(t, dir, srv, "anthropic/claude-sonnet-5-5:off", 0)
	jsonEqual(t, "adaptive off", b["thinking"], `{"type":"disabled"}`)
	b, m = bodyAt(t, dir, srv, "anthropic/claude-opus-5-5:off", 0)
	jsonEqual(t, "always thinks", b["output_config"], `{"effort":"low"}`)
	if m.Thinking != "minimal" {
		t.Errorf("opus 5.5 off clamps to %q", m.Thinking)
	}
	b, _ = bodyAt(t, dir, srv, "anthropic/claude-fable-5-1:xhigh", 0)
	jsonEqual(t, "xhigh effort", b["output_config"], `{"effort":"xhigh"}`)
	b, _ = bodyAt(t, dir, srv, "local/plain:high", 0)
	if _, ok := b["thinking"]; ok {
		t.Errorf("a model without reasoning got thinking: %v", b)
	}
}

// TestThinkingOpenAI: reasoning_effort only for reasoning models: the
// map's value or the level's name, "none" at off where the model says so.
func TestThinkingOpenAI(t *testing.T) {
	dir, srv := thinkingRig(t, "openai", APIOpenAICompletions, "", "")
	for spec, want := range map[string]any{
		"openai/gpt-5.6-terra:high": "high", "openai/gpt-5.6-terra:off": "none", "openai/gpt-5.6-terra:minimal": "low",
		"openai/gpt-5.6-terra:xhigh": "xhigh", "openai/gpt-6-sol:high": "none",
		"local/thinker:high": "max", "local/thinker:low": "low", "local/thinker:off": nil, "local/plain:high": nil,
	} {
		b, _ := bodyAt(t, dir, srv, spec, 0)
		if b["reasoning_effort"] != want {
			t.Errorf("%s: reasoning_effort = %v, want %v", spec, b["reasoning_effort"], want)
		}
	}
	// Z.ai switches thinking its own way.
	dir, srv = thinkingRig(t, "zai", APIOpenAICompletions, "", "")
	b, m := bodyAt(t, dir, srv, "zai/glm-5:medium", 0)
	jsonEqual(t, "zai", b["thinking"], `{"type":"enabled"}`)
	if _, ok := b["reasoning_effort"]; ok || m.Thinking != "high" {
		t.Errorf("zai: %v, %+v", b, m)
	}
}

// TestThinkingGemini: Gemini 3 takes a named level, 2.5 a budget (0 turns
// it off); thoughts are asked for whenever thinking is on.
func TestThinkingGemini(t *testing.T) {
	dir, srv := thinkingRig(t, "google", APIGoogleGenerativeAI, "", "")
	b, _ := bodyAt(t, dir, srv, "google/gemini-3.5-flash:low", 0)
	jsonEqual(t, "gemini 3", b["generationConfig"], `{"maxOutputTokens":65536,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"LOW"}}`)
	b, m := bodyAt(t, dir, srv, "google/gemini-3.1-pro-preview:minimal", 1000)
	jsonEqual(t, "pro minimal clamps to low", b["generationConfig"], `{"maxOutputTokens":1000,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"LOW"}}`)
	if m.Thinking != "low" {
		t.Errorf("model = %+v", m)
	}
	b, _ = bodyAt(t, dir, srv, "google/gemini-2.5-flash:off", 1000)
	jsonEqual(t, "2.5 off", b["generationConfig"], `{"maxOutputTokens":1000,"thinkingConfig":{"thinkingBudget":0}}`)
	b, _ = bodyAt(t, dir, srv, "google/gemini-2.5-flash:medium", 1000)
	jsonEqual(t, "2.5 medium", b["generationConfig"], `{"maxOutputTokens":1000,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}}`)
}

// TestDefaultThinkingLevel: settings.json's defaultThinkingLevel applies
// when the spec names no level; pi's medium when it is unset; a level
// that is not one is named in the problems and medium applies.
func TestDefaultThinkingLevel(t *testing.T) {
	dir, srv := thinkingRig(t, "openai", APIOpenAICompletions, "", `{"defaultThinkingLevel":"low","theme":"x"}`)
	b, m := bodyAt(t, dir, srv, "openai/gpt-5.6-terra", 0)
	if m.Thinking != "low" || b["reasoning_effort"] != "low" {
		t.Errorf("from settings: %+v, %v", m, b["reasoning_effort"])
	}
	if _, m = bodyAt(t, dir, srv, "openai/gpt-5.6-terra:high", 0); m.Thinking != "high" {
		t.Errorf("the spec wins: %+v", m)
	}
	writeFile(t, dir, "settings.json", `{}`)
	if _, m = bodyAt(t, dir, srv, "openai/gpt-5.6-terra", 0); m.Thinking != "medium" {
		t.Errorf("pi's default: %+v", m)
	}
	writeFile(t, dir, "settings.json", `{"defaultThinkingLevel":"ultra"}`)
	if _, m = bodyAt(t, dir, srv, "openai/gpt-5.6-terra", 0); m.Thinking != "medium" {
		t.Errorf("bad level: %+v", m)
	}
	if p := strings.Join(Load(dir, nil).Problems(), "\n"); !strings.Contains(p, `defaultThinkingLevel: unknown thinking level "ultra"`) {
		t.Errorf("problems = %q", p)
	}
	d, err := Describe(dir, envOf(nil), "anthropic/claude-opus-5-5:off")
	if err != nil || d.Model.Thinking != "minimal" || strings.Join(d.Levels, ",") != "minimal,low,medium,high,xhigh" || d.Usable {
		t.Errorf("describe = %+v, %v", d, err)
	}
}

package provider

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

const modelsJSON = `{"providers":{
	// a local server, and pi's comments are allowed
	"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","apiKey":"ollama",
		"models":[{"id":"qwen3:8b","name":"Qwen 3 8B","contextWindow":32768,"maxTokens":8192}]},
	/* the built-in openai, through a proxy, with one more model */
	"openai":{"baseUrl":"http://proxy.local/v1","apiKey":"PROXY_KEY",
		"models":[{"id":"gpt-x","name":"GPT X","api":"openai-completions"}]}}}`

func TestResolveModelsJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", modelsJSON)
	c, m, err := Resolve(dir, envOf(nil), "ollama/qwen3:8b", Options{})
	if err != nil || c == nil {
		t.Fatal(err)
	}
	want := Model{Provider: "ollama", ID: "qwen3:8b", Name: "Qwen 3 8B", API: APIOpenAICompletions, ContextWindow: 32768, MaxTokens: 8192, Thinking: ThinkingOff}
	if want.KeyTag = m.KeyTag; m != want || m.String() != "ollama/qwen3:8b" || len(m.KeyTag) != 16 {
		t.Errorf("model = %+v", m)
	}
	// A provider that lists its models serves only those; the error
	// lists what is available.
	_, _, err = Resolve(dir, envOf(nil), "ollama/library/llama3.2:1b", Options{})
	wantKind(t, err, ErrBadModel)
	if err == nil || !strings.Contains(err.Error(), "available: ollama/qwen3:8b") {
		t.Errorf("unlisted id: %v", err)
	}
	// models.json's openai changes the built-in one as pi does: its own
	// model is added, and the built-in models go through the proxy too.
	env := envOf(map[string]string{"PROXY_KEY": "k"})
	for _, spec := range []string{"openai/gpt-x", "openai/gpt-5.6-terra"} {
		c, m, err = Resolve(dir, env, spec, Options{})
		if err != nil || c.(*openAIClient).c.baseURL != "http://proxy.local/v1" {
			t.Errorf("%s: %+v, %v", spec, m, err)
		}
	}
	if m.Name != "GPT-5.6 Terra" || m.ContextWindow != 1050000 || !m.Reasoning {
		t.Errorf("built-in model through the proxy = %+v", m)
	}
}

func TestResolveBuiltIn(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { writeOK(APIAnthropicMessages, w) })
	dir := t.TempDir()
	// Only the address changes (pi's override-only provider entry); the
	// key comes from the environment.
	writeFile(t, dir, "models.json", `{"providers":{"anthropic":{"baseUrl":"`+srv.URL+`"}}}`)
	env := envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant-from-env"})
	c, m, err := Resolve(dir, env, "anthropic/claude-haiku-4-5", Options{})
	if err != nil || m.Name != "Claude Haiku 4.5" || m.API != APIAnthropicMessages || m.ContextWindow != 200000 {
		t.Fatalf("%+v, %v", m, err)
	}
	if _, _, err := collect(t, context.Background(), c, Request{Model: m.ID, Messages: simpleRequest().Messages}); err != nil {
		t.Fatal(err)
	}
	if h := srv.requests()[0].header; h.Get("x-api-key") != "sk-ant-from-env" || srv.requests()[0].path != "/v1/messages" {
		t.Errorf("request = %+v", srv.requests()[0])
	}
	// With no spec and no defaults: the first model that has a key.
	_, m, err = Resolve(dir, env, "", Options{})
	if err != nil || m.String() != "anthropic/claude-sonnet-5-5" {
		t.Errorf("first available: %+v, %v", m, err)
	}
	// Only a Gemini key: Gemini models, no models.json needed.
	_, m, err = Resolve(t.TempDir(), envOf(map[string]string{"GEMINI_API_KEY": "g"}), "", Options{})
	if err != nil || m.Provider != "google" || m.API != APIGoogleGenerativeAI {
		t.Errorf("gemini only: %+v, %v", m, err)
	}
	// Only a Groq key: an OpenAI-compatible provider of pi's key table.
	c, m, err = Resolve(t.TempDir(), envOf(map[string]string{"GROQ_API_KEY": "g"}), "", Options{})
	if err != nil || m.Provider != "groq" || c.(*openAIClient).c.baseURL != "https://api.groq.com/openai/v1" {
		t.Errorf("groq only: %+v, %v", m, err)
	}
	// Routers serve ids they do not list, with pi's default sizes.
	_, m, err = Resolve(t.TempDir(), envOf(map[string]string{"OPENROUTER_API_KEY": "o"}), "openrouter/some/new-model", Options{})
	if err != nil || m.ContextWindow != 128000 || m.MaxTokens != 16384 {
		t.Errorf("router: %+v, %v", m, err)
	}
}

func TestResolveDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", modelsJSON)
	writeFile(t, dir, "settings.json", `{"defaultProvider":"openai","defaultModel":"gpt-5.6-luna","theme":"dark"}`)
	_, m, err := Resolve(dir, envOf(map[string]string{"PROXY_KEY": "k"}), "", Options{})
	if err != nil || m.Provider != "openai" || m.ID != "gpt-5.6-luna" {
		t.Errorf("defaults: %+v, %v", m, err)
	}
	writeFile(t, dir, "settings.json", `{"defaultProvider":"ollama"}`)
	_, m, err = Resolve(dir, envOf(nil), "", Options{})
	if err != nil || m.String() != "ollama/qwen3:8b" {
		t.Errorf("default provider only: %+v, %v", m, err)
	}
}

func TestResolveUnknownProvider(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", modelsJSON)
	_, _, err := Resolve(dir, envOf(map[string]string{"PROXY_KEY": "k"}), "nope/model", Options{})
	wantKind(t, err, ErrNotFound)
	for _, w := range []string{`there is no provider "nope"`, "available: ollama/qwen3:8b, openai/gpt-5.6-terra, openai/gpt-5.6-luna, openai/gpt-6-sol, openai/gpt-x"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	_, _, err = Resolve(dir, envOf(nil), "no-slash", Options{})
	wantKind(t, err, ErrBadModel)
	if !strings.Contains(err.Error(), "PROVIDER/ID") {
		t.Errorf("error = %v", err)
	}
}

func TestResolveNothingConfigured(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Resolve(dir, envOf(nil), "", Options{})
	pe := wantKind(t, err, ErrNoModel)
	want := "set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or put one in " + filepath.Join(dir, "auth.json") +
		"), or add a provider to " + filepath.Join(dir, "models.json") +
		", then choose it with --model PROVIDER/ID or defaultProvider/defaultModel in " + filepath.Join(dir, "settings.json")
	if pe.Hint != want || err.Error() != "no model is configured; "+want {
		t.Errorf("error = %q", err)
	}
	// Unknown provider with nothing configured: the same setup hint.
	_, _, err = Resolve(dir, envOf(nil), "x/y", Options{})
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q", err)
	}
	// A built-in provider chosen explicitly without its key: calls say
	// what to set, and nothing is sent.
	c, _, err := Resolve(dir, envOf(nil), "openai/gpt-5.6-terra", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(t.Context(), simpleRequest(), nil)
	wantKind(t, err, ErrAuth)
	if !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
		t.Errorf("error = %v", err)
	}
}

func TestResolveBadFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", "{\n  \"providers\": {\n    \"x\": {\"baseUrl\": \"http://x\",, }\n")
	_, _, err := Resolve(dir, envOf(map[string]string{"OPENAI_API_KEY": "k"}), "openai/gpt-5.6-terra", Options{})
	wantKind(t, err, ErrConfig)
	if want := filepath.Join(dir, "models.json") + " is not valid JSON at line 3, column 33; fix it: pi-tui picks no model until it can read it"; err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	dir = t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"bad":{"baseUrl":"http://x","api":"responses","models":[{"id":"m"}]}}}`)
	c, _, err := Resolve(dir, envOf(nil), "bad/m", Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown api "responses"`) {
		t.Errorf("error = %v, client %v", err, c)
	}
	dir = t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"bad":{"baseUrl":"http://x","models":[{"id":"m"}]}}}`)
	_, _, err = Resolve(dir, envOf(nil), "bad/m", Options{})
	if err == nil || !strings.Contains(err.Error(), `providers.bad.models[0] (m) has no "api"`) {
		t.Errorf("error = %v", err)
	}
	dir = t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"ollama":{"baseUrl":"http://x","api":"openai-completions","models":[{"id":"m","contextWindow":"big"}]}}}`)
	_, _, err = Resolve(dir, envOf(nil), "ollama/m", Options{})
	if want := "at line 1, column 113: providers.models.contextWindow must be a number, not string"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
}

package provider

import (
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
	"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","apiKey":"ollama",
		"models":[{"id":"qwen3:8b","name":"Qwen 3 8B","contextWindow":32768,"maxTokens":8192}]},
	"openai":{"baseUrl":"http://proxy.local/v1","api":"openai-completions","apiKey":"PROXY_KEY",
		"models":[{"id":"gpt-x","name":"GPT X"}]}}}`

func TestResolveModelsJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", modelsJSON)
	c, m, err := Resolve(dir, envOf(nil), "ollama/qwen3:8b", Options{})
	if err != nil || c == nil {
		t.Fatal(err)
	}
	want := Model{Provider: "ollama", ID: "qwen3:8b", Name: "Qwen 3 8B", API: APIOpenAICompletions, ContextWindow: 32768, MaxTokens: 8192}
	if m != want || m.String() != "ollama/qwen3:8b" {
		t.Errorf("model = %+v", m)
	}
	// A provider that lists its models serves only those; the error
	// lists what is available.
	_, _, err = Resolve(dir, envOf(nil), "ollama/library/llama3.2:1b", Options{})
	wantKind(t, err, ErrBadModel)
	if err == nil || !strings.Contains(err.Error(), "available: ollama/qwen3:8b") {
		t.Errorf("unlisted id: %v", err)
	}
	// models.json's openai replaces the built-in one.
	c, m, err = Resolve(dir, envOf(map[string]string{"PROXY_KEY": "k"}), "openai/gpt-x", Options{})
	if err != nil || m.Name != "GPT X" || c.(*openAIClient).c.baseURL != "http://proxy.local/v1" {
		t.Errorf("override: %+v, %v", m, err)
	}
}

func TestResolveBuiltIn(t *testing.T) {
	dir := t.TempDir()
	env := envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant"})
	c, m, err := Resolve(dir, env, "anthropic/claude-sonnet-4-5", Options{})
	if err != nil || m.Name != "Claude Sonnet 4.5" || m.API != APIAnthropicMessages {
		t.Fatalf("%+v, %v", m, err)
	}
	if ac := c.(*anthropicClient); ac.c.endpoint != "https://api.anthropic.com/v1/messages" || ac.c.header.Get("x-api-key") != "sk-ant" {
		t.Errorf("client = %+v", ac.c)
	}
	// With no spec and no defaults: the first available model.
	_, m, err = Resolve(dir, env, "", Options{})
	if err != nil || m.Provider != "anthropic" || m.ID != "claude-sonnet-4-5" {
		t.Errorf("first available: %+v, %v", m, err)
	}
}

func TestResolveDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", modelsJSON)
	writeFile(t, dir, "settings.json", `{"defaultProvider":"openai","defaultModel":"gpt-4.1","theme":"dark"}`)
	_, m, err := Resolve(dir, envOf(map[string]string{"PROXY_KEY": "k"}), "", Options{})
	if err != nil || m.Provider != "openai" || m.ID != "gpt-4.1" {
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
	_, _, err := Resolve(dir, envOf(nil), "nope/model", Options{})
	wantKind(t, err, ErrNotFound)
	for _, w := range []string{`there is no provider "nope"`, "available: ollama/qwen3:8b, openai/gpt-x"} {
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
	want := "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or add a provider to " + filepath.Join(dir, "models.json") +
		", then choose it with --model PROVIDER/ID or defaultProvider/defaultModel in " + filepath.Join(dir, "settings.json")
	if pe.Hint != want || err.Error() != "no model is configured; "+want {
		t.Errorf("error = %q", err)
	}
	// Unknown provider with nothing configured: the same setup hint.
	_, _, err = Resolve(dir, envOf(nil), "x/y", Options{})
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q", err)
	}
	// A built-in provider chosen explicitly without its key: calls say what to set.
	c, _, err := Resolve(dir, envOf(nil), "openai/gpt-5", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(t.Context(), simpleRequest(), nil)
	if !strings.Contains(err.Error(), "set OPENAI_API_KEY") {
		t.Errorf("error = %v", err)
	}
}

func TestResolveBadFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":`)
	_, _, err := Resolve(dir, envOf(nil), "a/b", Options{})
	wantKind(t, err, ErrNoModel)
	if !strings.Contains(err.Error(), "models.json") {
		t.Errorf("error = %v", err)
	}
	dir = t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"bad":{"baseUrl":"http://x","api":"responses"}}}`)
	_, _, err = Resolve(dir, envOf(nil), "bad/m", Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown api "responses"`) {
		t.Errorf("error = %v", err)
	}
}

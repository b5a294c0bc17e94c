package pisettings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadModelsPiFormat: pi's models.json with comments, per-model api
// and baseUrl, reasoning, thinkingLevelMap, cost, compat and
// modelOverrides is read whole.
func TestReadModelsPiFormat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ModelsFile), []byte(`{
  // my providers
  "providers": {
    "ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions", /* no key */
      "models": [{"id": "qwen3:8b", "reasoning": true, "thinkingLevelMap": {"off": null, "high": "hi"},
                  "input": ["text"], "contextWindow": 32768, "maxTokens": 8192,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}, "baseUrl": "http://other:1/v1",
                  "compat": {"supportsReasoningEffort": false}}]},
    "anthropic": {"apiKey": "$MY_KEY // not a comment", "modelOverrides": {"claude-haiku-4-5": {"maxTokens": 1000, "cost": {"input": 0.5}}}}
  }
}`), 0o644)
	ps, err := ReadModels(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Name != "anthropic" || ps[1].Name != "ollama" {
		t.Fatalf("providers = %+v", ps)
	}
	a, o := ps[0], ps[1]
	if a.APIKey != "$MY_KEY // not a comment" || *a.ModelOverrides["claude-haiku-4-5"].MaxTokens != 1000 || *a.ModelOverrides["claude-haiku-4-5"].Cost.Input != 0.5 {
		t.Errorf("anthropic = %+v", a)
	}
	m := o.Models[0]
	if m.ID != "qwen3:8b" || !*m.Reasoning || m.ThinkingLevelMap["off"] != nil || *m.ThinkingLevelMap["high"] != "hi" ||
		m.BaseURL != "http://other:1/v1" || *m.Compat.SupportsReasoningEffort || m.ContextWindow != 32768 {
		t.Errorf("model = %+v", m)
	}
}

// TestReadModelsErrors: a malformed models.json is one sentence naming
// the file and the line and column.
func TestReadModelsErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ModelsFile)
	for text, want := range map[string]string{
		"{\n  \"providers\": {\n    \"a\": {\"baseUrl\": 1}\n  }\n}": path + " is not valid JSON at line 3, column 22: providers.baseUrl must be a string, not number",
		"{\n  // fine\n  \"providers\": {\n    \"a\": {,}\n  }\n}":   path + " is not valid JSON at line 4, column 11",
		`{"providers": {`: path + " is not valid JSON at line 1, column 16: it ends too early",
		"{\"bad json\n":   path + " is not valid JSON at line 1, column 11: it ends too early",
		`{"providers": {"a": {"models": [{"name": "no id"}]}}}`: path + `: providers.a.models[0] has no "id"`,
	} {
		os.WriteFile(path, []byte(text), 0o644)
		_, err := ReadModels(dir)
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", text, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("more than one line: %q", err)
		}
	}
}

func TestReadThinkingLevel(t *testing.T) {
	dir := t.TempDir()
	if l, err := ReadThinkingLevel(dir); l != "" || err != nil {
		t.Errorf("missing file: %q, %v", l, err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"defaultThinkingLevel": " high ", "other": 1}`), 0o644)
	if l, err := ReadThinkingLevel(dir); l != "high" || err != nil {
		t.Errorf("high: %q, %v", l, err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"defaultThinkingLevel": 3}`), 0o644)
	if _, err := ReadThinkingLevel(dir); err == nil || !strings.Contains(err.Error(), "defaultThinkingLevel must be a string") {
		t.Errorf("number: %v", err)
	}
}

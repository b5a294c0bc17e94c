package provider

import (
	"strings"
	"testing"
)

// Describe says where the model a prompt without --model runs comes
// from, for each way pi-tui picks it: settings.json's default, its
// provider alone, and with no default the first model that has a key
// (models.json's own providers first, else a built-in provider whose key
// is in the environment or auth.json). Resolve picks the same model.
func TestDescribeSaysWhereTheModelComesFrom(t *testing.T) {
	for _, c := range []struct {
		name            string
		models, setting string
		auth            string
		env             map[string]string
		want            string
		source          Source
		origin          string
	}{
		{name: "only models.json", models: modelsJSON, want: "ollama/qwen3:8b", source: SourceFirstUsable, origin: "first in models.json"},
		{name: "settings.json's default", models: modelsJSON, setting: `{"defaultProvider":"ollama","defaultModel":"qwen3:8b"}`,
			want: "ollama/qwen3:8b", source: SourceDefault, origin: "settings.json"},
		{name: "settings.json's provider", models: modelsJSON, setting: `{"defaultProvider":"ollama"}`,
			want: "ollama/qwen3:8b", source: SourceDefaultProvider, origin: "settings.json's provider"},
		{name: "a key in the environment", env: map[string]string{"GEMINI_API_KEY": "g"}, source: SourceFirstUsable, origin: "key in GEMINI_API_KEY"},
		{name: "a key in auth.json", auth: `{"anthropic":{"type":"api_key","key":"sk-ant-0123456789"}}`, source: SourceFirstUsable, origin: "key in auth.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.models != "" {
				writeFile(t, dir, "models.json", c.models)
			}
			if c.setting != "" {
				writeFile(t, dir, "settings.json", c.setting)
			}
			if c.auth != "" {
				writeFile(t, dir, "auth.json", c.auth)
			}
			d, err := Describe(dir, envOf(c.env), "")
			if err != nil {
				t.Fatal(err)
			}
			if d.Source != c.source || d.Origin() != c.origin || !d.Usable || (c.want != "" && d.Model.String() != c.want) {
				t.Errorf("%s (%s) from %d, usable %v; want %s (%s) from %d", d.Model, d.Origin(), d.Source, d.Usable, c.want, c.origin, c.source)
			}
			_, m, err := Resolve(dir, envOf(c.env), "", Options{})
			if err != nil || m.String() != d.Model.String() {
				t.Errorf("a prompt runs %s (%v), Describe says %s", m, err, d.Model)
			}
		})
	}
	// A named model: where it comes from is the caller's to say.
	dir := t.TempDir()
	writeFile(t, dir, "models.json", modelsJSON)
	if d, err := Describe(dir, envOf(nil), "ollama/qwen3:8b"); err != nil || d.Source != SourceNamed || d.Origin() != "" {
		t.Errorf("named: %+v, %v", d, err)
	}
	// Nothing usable: the error says how to set a model up.
	_, err := Describe(t.TempDir(), envOf(nil), "")
	if pe := wantKind(t, err, ErrNoModel); !strings.Contains(pe.Hint, "ANTHROPIC_API_KEY") || !strings.Contains(pe.Hint, "models.json") {
		t.Errorf("no model: %v", err)
	}
}

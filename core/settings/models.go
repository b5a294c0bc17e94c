package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// ModelsFile is pi's model configuration inside the agent dir.
const ModelsFile = "models.json"

// ModelConfig is one model of a provider.
type ModelConfig struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	ContextWindow int    `json:"contextWindow"`
	MaxTokens     int    `json:"maxTokens"`
}

// ProviderConfig is one provider in models.json (pi's format).
type ProviderConfig struct {
	Name    string            `json:"-"`
	BaseURL string            `json:"baseUrl"`
	API     string            `json:"api"`    // openai-completions | anthropic-messages
	APIKey  string            `json:"apiKey"` // an environment variable's name, or the key itself
	Headers map[string]string `json:"headers"`
	Models  []ModelConfig     `json:"models"`
	BuiltIn bool              `json:"-"`
}

// ModelRef names a model for pickers: PROVIDER/ID and a display name.
type ModelRef struct {
	Provider, ID, Name string
}

// String is PROVIDER/ID.
func (m ModelRef) String() string { return m.Provider + "/" + m.ID }

// BuiltInProviders are usable without models.json when their key variable
// is set. The model lists are a starting point; models.json can add more.
func BuiltInProviders() []ProviderConfig {
	return []ProviderConfig{
		{Name: "anthropic", API: "anthropic-messages", BaseURL: "https://api.anthropic.com", APIKey: "ANTHROPIC_API_KEY", BuiltIn: true,
			Models: []ModelConfig{
				{ID: "claude-sonnet-4-5", Name: "Claude Sonnet 4.5", ContextWindow: 200000, MaxTokens: 64000},
				{ID: "claude-opus-4-1", Name: "Claude Opus 4.1", ContextWindow: 200000, MaxTokens: 32000},
				{ID: "claude-haiku-4-5", Name: "Claude Haiku 4.5", ContextWindow: 200000, MaxTokens: 64000},
			}},
		{Name: "openai", API: "openai-completions", BaseURL: "https://api.openai.com/v1", APIKey: "OPENAI_API_KEY", BuiltIn: true,
			Models: []ModelConfig{
				{ID: "gpt-5", Name: "GPT-5", ContextWindow: 400000, MaxTokens: 128000},
				{ID: "gpt-5-mini", Name: "GPT-5 mini", ContextWindow: 400000, MaxTokens: 128000},
				{ID: "gpt-4.1", Name: "GPT-4.1", ContextWindow: 1047576, MaxTokens: 32768},
			}},
	}
}

// ReadModels reads A/models.json. A missing file is no providers and no
// error; an invalid one is an error naming the file.
func ReadModels(agentDir string) ([]ProviderConfig, error) {
	path := filepath.Join(agentDir, ModelsFile)
	data, _, err := fsutil.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, fsutil.PlainError(err))
	}
	var doc struct {
		Providers map[string]ProviderConfig `json:"providers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not valid: %v", path, err)
	}
	names := make([]string, 0, len(doc.Providers))
	for n := range doc.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]ProviderConfig, 0, len(names))
	for _, n := range names {
		p := doc.Providers[n]
		p.Name = n
		out = append(out, p)
	}
	return out, nil
}

// AvailableModels lists the models a user can pick: those of models.json,
// then the built-in providers whose key variable is set (env looks it up).
// A models.json provider replaces a built-in one of the same name.
func AvailableModels(agentDir string, env func(string) string) ([]ModelRef, error) {
	custom, err := ReadModels(agentDir)
	seen := map[string]bool{}
	var out []ModelRef
	for _, p := range custom {
		seen[p.Name] = true
		for _, m := range p.Models {
			out = append(out, ModelRef{Provider: p.Name, ID: m.ID, Name: m.Name})
		}
	}
	for _, p := range BuiltInProviders() {
		if seen[p.Name] || env == nil || env(p.APIKey) == "" {
			continue
		}
		for _, m := range p.Models {
			out = append(out, ModelRef{Provider: p.Name, ID: m.ID, Name: m.Name})
		}
	}
	return out, err
}

// wellKnownKeyVars are environment variables that hold model providers'
// keys, for pi's built-in providers and common gateways. They are kept out
// of the environment of commands the agent runs.
var wellKnownKeyVars = []string{
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN",
	"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY",
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
	"GROQ_API_KEY", "XAI_API_KEY", "OPENROUTER_API_KEY", "MISTRAL_API_KEY",
	"DEEPSEEK_API_KEY", "CEREBRAS_API_KEY", "ZAI_API_KEY", "HF_TOKEN",
	"TOGETHER_API_KEY", "FIREWORKS_API_KEY", "PERPLEXITY_API_KEY", "COHERE_API_KEY",
	"AI_GATEWAY_API_KEY",
}

// SecretEnvNames lists the environment variables that may hold pi-tui's
// model keys: the built-in providers' and other well-known provider
// variables, and every apiKey or header value in A/models.json that is
// written as a variable name (pi reads such a value from the
// environment). An unreadable models.json adds nothing; the rest still
// applies.
func SecretEnvNames(agentDir string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if isVarName(name) && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, n := range wellKnownKeyVars {
		add(n)
	}
	for _, p := range BuiltInProviders() {
		add(p.APIKey)
	}
	custom, _ := ReadModels(agentDir)
	for _, p := range custom {
		add(strings.TrimSpace(p.APIKey))
		for _, v := range p.Headers {
			add(strings.TrimSpace(v))
		}
	}
	return out
}

// isVarName reports whether s can name an environment variable.
func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

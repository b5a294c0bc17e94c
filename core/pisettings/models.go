package pisettings

import (
	"bytes"
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

// Cost is a model's price in dollars per million tokens.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// CostOverride is a partial Cost: only the prices it names change.
type CostOverride struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cacheRead"`
	CacheWrite *float64 `json:"cacheWrite"`
}

// Compat holds the OpenAI-compatibility switches of pi's models.json that
// pi-tui honours; other members are accepted and ignored.
type Compat struct {
	// SupportsReasoningEffort says whether the server takes
	// reasoning_effort (nil: decided by the provider).
	SupportsReasoningEffort *bool `json:"supportsReasoningEffort"`
	// ReasoningEffortMap maps a thinking level to the value sent.
	ReasoningEffortMap map[string]string `json:"reasoningEffortMap"`
	// ThinkingFormat is how thinking is switched: openai
	// (reasoning_effort), zai (thinking.type), qwen (enable_thinking) or
	// qwen-chat-template (chat_template_kwargs.enable_thinking).
	ThinkingFormat string `json:"thinkingFormat"`
	// MaxTokensField is max_tokens or max_completion_tokens.
	MaxTokensField string `json:"maxTokensField"`
}

// Merge returns c with the members o sets; nil leaves c as it is.
func (c Compat) Merge(o *Compat) Compat {
	if o == nil {
		return c
	}
	if o.SupportsReasoningEffort != nil {
		c.SupportsReasoningEffort = o.SupportsReasoningEffort
	}
	if o.ReasoningEffortMap != nil {
		c.ReasoningEffortMap = o.ReasoningEffortMap
	}
	if o.ThinkingFormat != "" {
		c.ThinkingFormat = o.ThinkingFormat
	}
	if o.MaxTokensField != "" {
		c.MaxTokensField = o.MaxTokensField
	}
	return c
}

// ModelConfig is one model of a provider in models.json.
type ModelConfig struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	API     string `json:"api"`     // overrides the provider's api
	BaseURL string `json:"baseUrl"` // overrides the provider's baseUrl
	// Reasoning marks a model that can think (pi's default: false).
	Reasoning *bool `json:"reasoning"`
	// ThinkingLevelMap maps a thinking level to the value the provider
	// takes for it; null marks a level the model does not support.
	ThinkingLevelMap map[string]*string `json:"thinkingLevelMap"`
	Input            []string           `json:"input"`
	ContextWindow    int                `json:"contextWindow"`
	MaxTokens        int                `json:"maxTokens"`
	Cost             *Cost              `json:"cost"`
	Headers          map[string]string  `json:"headers"`
	Compat           *Compat            `json:"compat"`
}

// ModelOverride changes some fields of a built-in model (modelOverrides).
type ModelOverride struct {
	Name             *string            `json:"name"`
	Reasoning        *bool              `json:"reasoning"`
	ThinkingLevelMap map[string]*string `json:"thinkingLevelMap"`
	Input            []string           `json:"input"`
	ContextWindow    *int               `json:"contextWindow"`
	MaxTokens        *int               `json:"maxTokens"`
	Cost             *CostOverride      `json:"cost"`
	Headers          map[string]string  `json:"headers"`
	Compat           *Compat            `json:"compat"`
}

// ProviderConfig is one provider in models.json (pi's format). A provider
// that pi-tui also knows as a built-in one changes it: baseUrl, headers,
// apiKey and compat apply to its models, modelOverrides change some of
// them, and models adds models or replaces those with the same id.
type ProviderConfig struct {
	Name           string                   `json:"-"` // the key under "providers"
	DisplayName    string                   `json:"name"`
	BaseURL        string                   `json:"baseUrl"`
	API            string                   `json:"api"`    // openai-completions | anthropic-messages | google-generative-ai
	APIKey         string                   `json:"apiKey"` // a value as pi reads it: !command, $VAR, a variable's name, or the key
	Headers        map[string]string        `json:"headers"`
	Compat         *Compat                  `json:"compat"`
	AuthHeader     bool                     `json:"authHeader"` // also send the key as Authorization: Bearer
	Models         []ModelConfig            `json:"models"`
	ModelOverrides map[string]ModelOverride `json:"modelOverrides"`
}

// ModelRef names a model for pickers: PROVIDER/ID and a display name.
type ModelRef struct {
	Provider, ID, Name string
}

// String is PROVIDER/ID.
func (m ModelRef) String() string { return m.Provider + "/" + m.ID }

// ReadModels reads A/models.json, providers sorted by name. A missing file
// is no providers and no error. A file that is not valid is one error
// sentence naming the file and, for a syntax or type error, the line and
// column (comments are allowed, as pi allows them).
func ReadModels(agentDir string) ([]ProviderConfig, error) {
	path := filepath.Join(agentDir, ModelsFile)
	data, _, err := fsutil.ReadRegular(path, maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, fsutil.PlainError(err))
	}
	return parseModels(path, data)
}

func parseModels(path string, data []byte) ([]ProviderConfig, error) {
	data = StripJSONComments(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil // an empty file configures nothing
	}
	var doc struct {
		Providers map[string]ProviderConfig `json:"providers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, JSONError(path, data, err)
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
		if err := checkProvider(path, p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// checkProvider rejects what pi rejects: models without an id or with
// impossible sizes.
func checkProvider(path string, p ProviderConfig) error {
	if strings.TrimSpace(p.Name) == "" {
		return fmt.Errorf("%s: a provider has an empty name", path)
	}
	for i, m := range p.Models {
		where := fmt.Sprintf("%s: providers.%s.models[%d]", path, p.Name, i)
		switch {
		case strings.TrimSpace(m.ID) == "":
			return fmt.Errorf("%s has no \"id\"", where)
		case m.ContextWindow < 0:
			return fmt.Errorf("%s (%s): contextWindow must be positive", where, m.ID)
		case m.MaxTokens < 0:
			return fmt.Errorf("%s (%s): maxTokens must be positive", where, m.ID)
		}
	}
	return nil
}

// StripJSONComments blanks // and /* */ comments outside strings, keeping
// every other byte (and every line break) where it was, so positions in
// parse errors still point at the user's file.
func StripJSONComments(data []byte) []byte {
	if bytes.IndexByte(data, '/') < 0 {
		return data
	}
	out := append([]byte(nil), data...)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for i < len(out) && out[i] != '\n' {
				out[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			i += 2
			for i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/') {
				if out[i] != '\n' {
					out[i] = ' '
				}
				i++
			}
			if i < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// wellKnownKeyVars lists the environment variables that hold model providers'
// keys, for pi's built-in providers and common gateways. They are kept out
// of the environment of commands the agent runs.
func wellKnownKeyVars() []string {
	return []string{
		"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN",
		"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY",
		"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY",
		"GROQ_API_KEY", "XAI_API_KEY", "OPENROUTER_API_KEY", "MISTRAL_API_KEY",
		"DEEPSEEK_API_KEY", "CEREBRAS_API_KEY", "ZAI_API_KEY", "HF_TOKEN",
		"TOGETHER_API_KEY", "FIREWORKS_API_KEY", "PERPLEXITY_API_KEY", "COHERE_API_KEY",
		"AI_GATEWAY_API_KEY",
	}
}

// SecretEnvNames lists the environment variables that may hold pi-tui's
// model keys: the well-known provider variables, and every variable that
// an apiKey or header value in A/models.json, or a key in A/auth.json,
// reads (a bare name, $VAR or ${VAR}). An unreadable file adds nothing;
// the rest still applies.
func SecretEnvNames(agentDir string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(name string) {
		if isVarName(name) && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, n := range wellKnownKeyVars() {
		add(n)
	}
	custom, _ := ReadModels(agentDir)
	for _, p := range custom {
		for _, n := range ValueVars(p.APIKey) {
			add(n)
		}
		for _, v := range p.Headers {
			for _, n := range ValueVars(v) {
				add(n)
			}
		}
		for _, m := range p.Models {
			for _, v := range m.Headers {
				for _, n := range ValueVars(v) {
					add(n)
				}
			}
		}
	}
	if auth, err := ReadAuth(agentDir); err == nil {
		for _, e := range auth.Entries {
			for _, n := range ValueVars(e.Key) {
				add(n)
			}
		}
	}
	return out
}

// ValueVars names the environment variables a configuration value reads
// (pi's syntax: a bare variable name, or $VAR and ${VAR} inside the
// text). A !command reads none that pi-tui can know.
func ValueVars(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "!") {
		return nil
	}
	if isVarName(v) {
		return []string{v}
	}
	var out []string
	for i := 0; i < len(v); i++ {
		if v[i] != '$' || i+1 >= len(v) {
			continue
		}
		switch c := v[i+1]; {
		case c == '$' || c == '!':
			i++
		case c == '{':
			if end := strings.IndexByte(v[i+2:], '}'); end >= 0 {
				if name := v[i+2 : i+2+end]; isVarName(name) {
					out = append(out, name)
				}
				i += 2 + end
			}
		default:
			j := i + 1
			for j < len(v) && isVarByte(v[j], j == i+1) {
				j++
			}
			if j > i+1 {
				out = append(out, v[i+1:j])
				i = j - 1
			}
		}
	}
	return out
}

func isVarByte(c byte, first bool) bool {
	return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || !first && c >= '0' && c <= '9'
}

// isVarName reports whether s can name an environment variable.
func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isVarByte(s[i], i == 0) {
			return false
		}
	}
	return true
}

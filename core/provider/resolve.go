package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// Model is the model a client was resolved for.
type Model struct {
	Provider, ID, Name, API  string
	ContextWindow, MaxTokens int
	// Reasoning says the model can think; Thinking is the level its calls
	// use, already clamped to what the model supports.
	Reasoning bool
	Thinking  string
	// KeyTag changes when the key's source changes (another auth.json or
	// models.json value, another environment value), so a runtime holding
	// an old key can be replaced. It is a digest, never the key.
	KeyTag string
}

// String is PROVIDER/ID.
func (m Model) String() string { return m.Provider + "/" + m.ID }

// Resolve picks a model and returns a client for it. spec is
// "PROVIDER/ID" (the id may contain '/' and ':'), optionally followed by
// ":LEVEL" to set the thinking level; "" (or ":LEVEL") means
// settings.json's defaultProvider/defaultModel, else the first model that
// has a key. Models are the built-in catalogue's and A/models.json's
// merged as pi merges them; keys come from A/auth.json, models.json and
// the environment (see Registry). The thinking level is the spec's, else
// settings.json's defaultThinkingLevel, else medium, clamped to what the
// model supports. A provider that lists its models serves only those
// (routers such as OpenRouter and local servers without a list serve
// any); an unknown provider is an error listing what is available; with
// nothing usable the error says how to set a model up. The key itself is
// found on the first call (a !command runs then, cancellable with it).
func Resolve(agentDir string, env func(string) string, spec string, opts Options) (Client, Model, error) {
	if env == nil {
		env = os.Getenv
	}
	r := Load(agentDir, env)
	p, m, level, _, err := r.pick(spec)
	if err != nil {
		return nil, Model{}, err
	}
	headers := maps.Clone(p.headers)
	if len(m.Headers) > 0 {
		if headers == nil {
			headers = map[string]string{}
		}
		maps.Copy(headers, m.Headers)
	}
	plan := r.keyPlan(p)
	c, err := buildClient(target{provider: p.name, api: m.API, baseURL: m.BaseURL, models: []ModelInfo{m}, headers: headers,
		authHeader: p.authHeader, plan: plan, thinking: level}, env, opts)
	if err != nil {
		return nil, Model{}, err
	}
	mod := model(m, level)
	mod.KeyTag = keyTag(plan, headers, env)
	return c, mod, nil
}

// keyTag digests where a key and the header values come from, and the
// environment values they read.
func keyTag(plan keyPlan, headers map[string]string, env func(string) string) string {
	h := sha256.New()
	write := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	write(plan.raw)
	write(plan.envVar)
	if plan.envVar != "" {
		write(env(plan.envVar))
	}
	for _, n := range pisettings.ValueVars(plan.raw) {
		write(env(n))
	}
	keys := slices.Sorted(maps.Keys(headers))
	for _, k := range keys {
		write(k)
		write(headers[k])
		for _, n := range pisettings.ValueVars(headers[k]) {
			write(env(n))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func model(m ModelInfo, level string) Model {
	return Model{Provider: m.Provider, ID: m.ID, Name: m.Name, API: m.API, ContextWindow: m.ContextWindow, MaxTokens: m.MaxTokens,
		Reasoning: m.Reasoning, Thinking: level}
}

// Description is what Describe finds out about a model spec.
type Description struct {
	Model Model
	// Levels are the thinking levels the model supports, lowest first.
	Levels []string
	// Usable says a key is there (or none is needed); Hint says what to
	// do when it is not.
	Usable bool
	Hint   string
	// Source is where the model was chosen. Custom says its provider is
	// one models.json adds rather than a built-in one; KeyFrom names where
	// its key is: auth.json, models.json or an environment variable ("" when
	// none is needed or found). Together they say why this model runs when
	// the user named none.
	Source  Source
	Custom  bool
	KeyFrom string
}

// Describe resolves spec as Resolve does, without building a client or
// running any key command: what a status line or a level picker shows.
func Describe(agentDir string, env func(string) string, spec string) (Description, error) {
	if env == nil {
		env = os.Getenv
	}
	r := Load(agentDir, env)
	p, m, level, src, err := r.pick(spec)
	if err != nil {
		return Description{}, err
	}
	kp := r.keyPlan(p)
	return Description{Model: model(m, level), Levels: m.ThinkingLevels(), Usable: kp.ok, Hint: kp.hint,
		Source: src, Custom: !p.builtIn, KeyFrom: kp.from}, nil
}

// pick finds the model and the thinking level of a spec, and says where
// the model was chosen.
func (r *Registry) pick(spec string) (*providerInfo, ModelInfo, string, Source, error) {
	if err := r.Err(); err != nil {
		return nil, ModelInfo{}, "", 0, &Error{Kind: ErrConfig, Detail: err.Error(), Hint: "fix it: pi-tui picks no model until it can read it"}
	}
	modelSpec, level := SplitThinking(spec)
	var provName, id string
	src := SourceNamed
	if modelSpec != "" {
		var err error
		provName, id, err = pisettings.ParseModel(modelSpec)
		if err != nil {
			return nil, ModelInfo{}, "", 0, &Error{Kind: ErrBadModel, Detail: err.Error(), Hint: r.available()}
		}
	} else {
		d, err := pisettings.ReadDefaults(r.agentDir)
		if err != nil {
			return nil, ModelInfo{}, "", 0, &Error{Kind: ErrConfig, Detail: err.Error(), Hint: "fix it, or choose a model with --model PROVIDER/ID"}
		}
		provName, id, src = d.Provider, d.Model, SourceDefault
		if provName != "" && id == "" {
			// A default provider without a model: its first model.
			if p := r.provider(provName); p != nil && len(p.models) > 0 {
				id, src = p.models[0].ID, SourceDefaultProvider
			}
		}
		if provName == "" || id == "" {
			usable := r.Usable()
			if len(usable) == 0 {
				return nil, ModelInfo{}, "", 0, &Error{Kind: ErrNoModel, Hint: r.setupHint()}
			}
			provName, id, src = usable[0].Provider, usable[0].ID, SourceFirstUsable
		}
	}
	p, m, ok := r.find(provName, id)
	switch {
	case p == nil:
		return nil, ModelInfo{}, "", 0, &Error{Kind: ErrNotFound, Detail: fmt.Sprintf("there is no provider %q", provName), Hint: r.available()}
	case !ok:
		return nil, ModelInfo{}, "", 0, &Error{Kind: ErrBadModel, Detail: fmt.Sprintf("provider %q has no model %q", p.name, id), Hint: r.available()}
	}
	if level == "" {
		level = r.DefaultThinking()
	}
	return p, m, ClampThinking(m.ThinkingLevels(), level), src, nil
}

// setupHint says how to configure a first model, naming any OAuth login
// that pi-tui found but cannot use.
func (r *Registry) setupHint() string {
	h := "set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or put one in " +
		filepath.Join(r.agentDir, pisettings.AuthFile) + "), or add a provider to " + filepath.Join(r.agentDir, pisettings.ModelsFile) +
		", then choose it with --model PROVIDER/ID or defaultProvider/defaultModel in " + filepath.Join(r.agentDir, pisettings.FileName)
	var oauth []string
	for _, n := range r.notes {
		if strings.Contains(n, "OAuth") {
			oauth = append(oauth, n)
		}
	}
	if len(oauth) > 0 {
		h += " (" + strings.Join(oauth, "; ") + ")"
	}
	return h
}

// available lists the usable models for a hint (at most ten), or says how
// to set one up when there are none.
func (r *Registry) available() string {
	usable := r.Usable()
	if len(usable) == 0 {
		return r.setupHint()
	}
	names := make([]string, 0, 10)
	for i, l := range usable {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(usable)-10))
			break
		}
		names = append(names, l.String())
	}
	return "available: " + strings.Join(names, ", ")
}

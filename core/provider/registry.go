package provider

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// ModelInfo is everything pi-tui knows about one model: where it is
// served, how, and what it can do.
type ModelInfo struct {
	Provider, ID, Name string
	API, BaseURL       string
	Reasoning          bool
	// Thinking is how an Anthropic model takes thinking: budget or
	// adaptive ("" means decided by its id).
	Thinking         string
	ThinkingLevelMap map[string]*string
	Input            []string
	ContextWindow    int
	MaxTokens        int
	Cost             pisettings.Cost
	Headers          map[string]string // values as written (pi's syntax)
	Compat           pisettings.Compat
}

// String is PROVIDER/ID.
func (m ModelInfo) String() string { return m.Provider + "/" + m.ID }

// providerInfo is one provider after merging the catalogue, models.json
// and auth.json.
type providerInfo struct {
	name, display string
	api, baseURL  string
	headers       map[string]string
	compat        pisettings.Compat
	authHeader    bool
	apiKey        string   // models.json's apiKey, as written
	env, oauthEnv []string // key variables (built-in providers)
	builtIn       bool
	anyModel      bool // serves ids it does not list
	models        []ModelInfo
}

// Registry is the merged view of the built-in catalogue, A/models.json
// and A/auth.json that resolution and the pickers use.
type Registry struct {
	agentDir  string
	env       func(string) string
	providers []*providerInfo
	auth      pisettings.Auth
	thinking  string // settings.json's defaultThinkingLevel, checked ("" = unset)
	// errs are files that could not be used (models.json, auth.json);
	// notes are sentences about things that still work.
	errs  []string
	notes []string
}

// Load reads models.json, auth.json and settings.json's thinking level
// and merges them over the catalogue. It never fails: a file that cannot
// be used leaves the built-in providers and is named in Errors (and
// Resolve refuses to pick a model until it is fixed, so a key or a
// baseUrl in it is never silently ignored).
func Load(agentDir string, env func(string) string) *Registry {
	if env == nil {
		env = func(string) string { return "" }
	}
	r := &Registry{agentDir: agentDir, env: env}
	bi, err := builtIns()
	if err != nil {
		r.errs = append(r.errs, err.Error())
	}
	r.providers = bi
	custom, err := pisettings.ReadModels(agentDir)
	if err != nil {
		r.errs = append(r.errs, err.Error())
	} else if err := r.merge(custom); err != nil {
		r.errs = append(r.errs, err.Error())
		r.providers, _ = builtIns()
	}
	r.auth, err = pisettings.ReadAuth(agentDir)
	if err != nil {
		r.errs = append(r.errs, err.Error())
		r.auth = pisettings.Auth{Path: filepath.Join(agentDir, pisettings.AuthFile)}
	}
	if r.auth.Warning != "" {
		r.notes = append(r.notes, r.auth.Warning)
	}
	r.oauthNotes()
	if lvl, err := pisettings.ReadThinkingLevel(agentDir); err != nil {
		r.notes = append(r.notes, err.Error())
	} else if lvl != "" {
		if l, err := ParseThinkingLevel(lvl); err != nil {
			r.notes = append(r.notes, fmt.Sprintf("%s: defaultThinkingLevel: %v; %s applies", filepath.Join(agentDir, pisettings.FileName), err, DefaultThinking))
		} else {
			r.thinking = l
		}
	}
	return r
}

// Err is the first file that could not be used, as one sentence, or nil.
func (r *Registry) Err() error {
	if len(r.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", r.errs[0])
}

// Problems lists, one sentence each, the files that could not be used
// and then what the user should know about keys (an OAuth login pi-tui
// cannot use, an auth.json others can read, a bad defaultThinkingLevel).
func (r *Registry) Problems() []string {
	return append(append([]string(nil), r.errs...), r.notes...)
}

// AuthWarning is the sentence about an auth.json that other users can
// read, or "".
func (r *Registry) AuthWarning() string { return r.auth.Warning }

// DefaultThinking is the level settings.json asks for, else pi's default.
func (r *Registry) DefaultThinking() string {
	if r.thinking != "" {
		return r.thinking
	}
	return DefaultThinking
}

func (r *Registry) provider(name string) *providerInfo {
	for _, p := range r.providers {
		if p.name == name {
			return p
		}
	}
	return nil
}

// merge applies models.json over the catalogue as pi does: a provider
// pi-tui knows gets its baseUrl, headers, apiKey and compat applied to
// its models, its modelOverrides applied to the models they name, and
// its models added (replacing a model with the same id); any other
// provider is new, placed before the built-in ones.
func (r *Registry) merge(custom []pisettings.ProviderConfig) error {
	var added []*providerInfo
	for _, pc := range custom {
		p := r.provider(pc.Name)
		if p == nil {
			p = &providerInfo{name: pc.Name, display: pc.DisplayName, api: pc.API, anyModel: len(pc.Models) == 0}
			added = append(added, p)
		}
		if pc.DisplayName != "" {
			p.display = pc.DisplayName
		}
		if pc.API != "" && !p.builtIn {
			p.api = pc.API
		}
		if b := strings.TrimSpace(pc.BaseURL); b != "" {
			p.baseURL = b
			for i := range p.models {
				p.models[i].BaseURL = b
			}
		}
		if len(pc.Headers) > 0 {
			h := maps.Clone(p.headers)
			if h == nil {
				h = map[string]string{}
			}
			maps.Copy(h, pc.Headers)
			p.headers = h
		}
		if pc.Compat != nil {
			p.compat = p.compat.Merge(pc.Compat)
			for i := range p.models {
				p.models[i].Compat = p.models[i].Compat.Merge(pc.Compat)
			}
		}
		p.apiKey = strings.TrimSpace(pc.APIKey)
		p.authHeader = pc.AuthHeader
		for id, o := range pc.ModelOverrides {
			i := p.index(id)
			if i < 0 {
				r.notes = append(r.notes, fmt.Sprintf("%s: modelOverrides of %s names %q, which %s does not have; it was ignored",
					filepath.Join(r.agentDir, pisettings.ModelsFile), pc.Name, id, pc.Name))
				continue
			}
			p.models[i] = override(p.models[i], o)
		}
		for i, mc := range pc.Models {
			m := modelFromConfig(p, mc)
			if m.API == "" {
				return fmt.Errorf("%s: providers.%s.models[%d] (%s) has no \"api\": set it on the provider or the model",
					filepath.Join(r.agentDir, pisettings.ModelsFile), pc.Name, i, mc.ID)
			}
			if m.BaseURL == "" {
				return fmt.Errorf("%s: providers.%s.models[%d] (%s) has no \"baseUrl\": set it on the provider or the model",
					filepath.Join(r.agentDir, pisettings.ModelsFile), pc.Name, i, mc.ID)
			}
			if j := p.index(mc.ID); j >= 0 {
				p.models[j] = m
			} else {
				p.models = append(p.models, m)
			}
		}
		if !p.builtIn && len(pc.Models) == 0 && (p.api == "" || p.baseURL == "") {
			return fmt.Errorf("%s: provider %s needs \"baseUrl\" and \"api\" (or models)",
				filepath.Join(r.agentDir, pisettings.ModelsFile), pc.Name)
		}
	}
	r.providers = append(added, r.providers...)
	return nil
}

func (p *providerInfo) index(id string) int {
	for i := range p.models {
		if p.models[i].ID == id {
			return i
		}
	}
	return -1
}

// override applies one modelOverrides entry.
func override(m ModelInfo, o pisettings.ModelOverride) ModelInfo {
	if o.Name != nil {
		m.Name = *o.Name
	}
	if o.Reasoning != nil {
		m.Reasoning = *o.Reasoning
	}
	if o.ThinkingLevelMap != nil {
		m.ThinkingLevelMap = o.ThinkingLevelMap
	}
	if o.Input != nil {
		m.Input = o.Input
	}
	if o.ContextWindow != nil && *o.ContextWindow > 0 {
		m.ContextWindow = *o.ContextWindow
	}
	if o.MaxTokens != nil && *o.MaxTokens > 0 {
		m.MaxTokens = *o.MaxTokens
	}
	if c := o.Cost; c != nil {
		for dst, src := range map[*float64]*float64{&m.Cost.Input: c.Input, &m.Cost.Output: c.Output, &m.Cost.CacheRead: c.CacheRead, &m.Cost.CacheWrite: c.CacheWrite} {
			if src != nil {
				*dst = *src
			}
		}
	}
	if len(o.Headers) > 0 {
		h := maps.Clone(m.Headers)
		if h == nil {
			h = map[string]string{}
		}
		maps.Copy(h, o.Headers)
		m.Headers = h
	}
	m.Compat = m.Compat.Merge(o.Compat)
	return m
}

// keyPlan is where a provider's key comes from, decided without running
// anything: auth.json's api_key entry, else models.json's apiKey, else the
// provider's environment variable (pi 0.85's order).
type keyPlan struct {
	raw    string // the value to resolve (auth.json or models.json)
	what   string // names raw for errors: "auth.json's key for openai"
	envVar string // the variable the key is in, when it comes from the environment
	needed bool   // a key is required (built-in providers)
	// ok says a key will probably be found; when not, need is what to
	// set (short, for pickers) and hint says what to do (a sentence).
	ok   bool
	need string
	hint string
	note string // an OAuth login or token pi-tui cannot use
	// from names where the key is: auth.json, models.json or the
	// environment variable; "" when none is found or needed.
	from string
}

func (r *Registry) keyPlan(p *providerInfo) keyPlan {
	kp := keyPlan{needed: p.builtIn}
	authPath := r.auth.Path
	unusable := "" // what auth.json holds for the provider that cannot be used
	if e, found := r.auth.Entry(p.name); found {
		switch e.Type {
		case pisettings.AuthAPIKey:
			if strings.TrimSpace(e.Key) != "" {
				kp.raw, kp.what, kp.from = e.Key, fmt.Sprintf("%s's key for %s", pisettings.AuthFile, p.name), pisettings.AuthFile
			}
		case pisettings.AuthOAuth:
			unusable = fmt.Sprintf("%s holds an OAuth login for %s, which pi-tui cannot use", authPath, p.name)
		default:
			unusable = fmt.Sprintf("%s has an entry of type %q for %s, which pi-tui cannot use", authPath, e.Type, p.name)
		}
		if unusable != "" {
			kp.note = unusable + ": " + r.keyAdvice(p)
		}
	}
	if kp.raw == "" && p.apiKey != "" {
		kp.raw, kp.what, kp.from = p.apiKey, fmt.Sprintf("the apiKey of provider %q in %s", p.name, pisettings.ModelsFile), pisettings.ModelsFile
	}
	if kp.raw != "" {
		if unusable != "" {
			kp.note = unusable + "; it uses " + kp.what + " instead"
		}
		ok, missing := valueLooksSet(kp.raw, r.env)
		kp.ok = ok
		if !ok {
			kp.need = missing
			kp.hint = fmt.Sprintf("set %s, which %s reads", missing, kp.what)
			if missing == "" {
				kp.need, kp.hint = "a key", "fix "+kp.what
			}
		}
		return kp
	}
	for _, v := range p.env {
		if strings.TrimSpace(r.env(v)) != "" {
			kp.envVar, kp.ok, kp.from = v, true, v
			if kp.note != "" {
				kp.note = fmt.Sprintf("%s holds an OAuth login for %s, which pi-tui cannot use; it uses %s instead", authPath, p.name, v)
			}
			return kp
		}
	}
	if !kp.needed {
		kp.ok = true
		return kp
	}
	if kp.note == "" {
		for _, v := range p.oauthEnv {
			if r.env(v) != "" {
				kp.note = fmt.Sprintf("%s holds an OAuth token, which pi-tui cannot use: %s", v, r.keyAdvice(p))
				break
			}
		}
	}
	kp.need = strings.Join(p.env, " or ")
	if kp.need == "" {
		kp.need = "an API key"
	}
	kp.hint = r.keyAdvice(p)
	if kp.note != "" {
		kp.hint = kp.note
	}
	return kp
}

// keyAdvice says how to give a provider a key.
func (r *Registry) keyAdvice(p *providerInfo) string {
	if len(p.env) > 0 {
		return fmt.Sprintf("set %s, or give %s an api_key entry in %s", p.env[0], p.name, pisettings.AuthFile)
	}
	return fmt.Sprintf("set apiKey for provider %q in %s, or give it an api_key entry in %s", p.name, pisettings.ModelsFile, pisettings.AuthFile)
}

// oauthNotes names every OAuth login in auth.json that no provider here
// can use, so none is skipped silently.
func (r *Registry) oauthNotes() {
	for _, e := range r.auth.Entries {
		if e.Type == pisettings.AuthAPIKey {
			continue
		}
		if p := r.provider(e.Provider); p != nil {
			if kp := r.keyPlan(p); kp.note != "" {
				r.notes = append(r.notes, kp.note)
			}
			continue
		}
		r.notes = append(r.notes, fmt.Sprintf("%s holds an OAuth login for %s, which pi-tui cannot use: choose a provider with an API key instead",
			r.auth.Path, e.Provider))
	}
}

// Listed is one model for a picker.
type Listed struct {
	pisettings.ModelRef
	Usable bool
	// Need is what is missing when the model is not usable
	// ("ANTHROPIC_API_KEY"); Hint says what to do, as a sentence.
	Need, Hint    string
	Reasoning     bool
	ContextWindow int
}

// Models lists every model, the usable ones (a key is there, or none is
// needed) first, each group in catalogue order with models.json's own
// providers first.
func (r *Registry) Models() []Listed {
	var usable, rest []Listed
	for _, p := range r.providers {
		kp := r.keyPlan(p)
		for _, m := range p.models {
			l := Listed{ModelRef: pisettings.ModelRef{Provider: p.name, ID: m.ID, Name: m.Name}, Usable: kp.ok,
				Need: kp.need, Hint: kp.hint, Reasoning: m.Reasoning, ContextWindow: m.ContextWindow}
			if kp.ok {
				usable = append(usable, l)
			} else {
				rest = append(rest, l)
			}
		}
	}
	return append(usable, rest...)
}

// Usable lists the models that have a key, in Models' order.
func (r *Registry) Usable() []Listed {
	var out []Listed
	for _, l := range r.Models() {
		if l.Usable {
			out = append(out, l)
		}
	}
	return out
}

// find returns a provider and its model. A provider that serves ids it
// does not list gives a model with the provider's api and baseUrl and
// pi's default sizes.
func (r *Registry) find(provName, id string) (*providerInfo, ModelInfo, bool) {
	p := r.provider(provName)
	if p == nil {
		return nil, ModelInfo{}, false
	}
	if i := p.index(id); i >= 0 {
		return p, p.models[i], true
	}
	if !p.anyModel {
		return p, ModelInfo{}, false
	}
	m := modelFromConfig(p, pisettings.ModelConfig{ID: id})
	return p, m, true
}

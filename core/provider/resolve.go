package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/settings"
)

// Model is the model a client was resolved for.
type Model struct {
	Provider, ID, Name, API  string
	ContextWindow, MaxTokens int
}

// String is PROVIDER/ID.
func (m Model) String() string { return m.Provider + "/" + m.ID }

// Resolve picks a model and returns a client for it. spec is
// "PROVIDER/ID" (the id may contain '/'); "" means settings.json's
// defaultProvider/defaultModel, else the first available model. Providers
// are those of A/models.json and the built-in ones (a models.json
// provider replaces a built-in one of the same name). An id the provider
// does not list is still used, since servers such as Ollama have many
// models; an unknown provider is an error listing what is available, and
// with nothing usable the error says how to set a model up.
func Resolve(agentDir string, env func(string) string, spec string, opts Options) (Client, Model, error) {
	if env == nil {
		env = os.Getenv
	}
	custom, err := settings.ReadModels(agentDir)
	if err != nil {
		return nil, Model{}, &Error{Kind: ErrNoModel, Err: err, Hint: "fix " + filepath.Join(agentDir, settings.ModelsFile)}
	}
	providers := append([]settings.ProviderConfig(nil), custom...)
	for _, b := range settings.BuiltInProviders() {
		if findProvider(custom, b.Name) == nil {
			providers = append(providers, b)
		}
	}
	var provName, id string
	if strings.TrimSpace(spec) != "" {
		provName, id, err = settings.ParseModel(spec)
		if err != nil {
			return nil, Model{}, &Error{Kind: ErrBadModel, Detail: err.Error(), Hint: available(agentDir, env)}
		}
	} else {
		d, err := settings.ReadDefaults(agentDir)
		if err != nil {
			return nil, Model{}, &Error{Kind: ErrNoModel, Err: err, Hint: "fix " + filepath.Join(agentDir, settings.FileName)}
		}
		provName, id = d.Provider, d.Model
		if provName != "" && id == "" {
			// A default provider without a model: its first model.
			if p := findProvider(providers, provName); p != nil && len(p.Models) > 0 {
				id = p.Models[0].ID
			}
		}
		if provName == "" || id == "" {
			refs, _ := settings.AvailableModels(agentDir, env)
			if len(refs) == 0 {
				return nil, Model{}, &Error{Kind: ErrNoModel, Hint: setupHint(agentDir)}
			}
			provName, id = refs[0].Provider, refs[0].ID
		}
	}
	p := findProvider(providers, provName)
	if p == nil {
		return nil, Model{}, &Error{Kind: ErrNotFound, Detail: fmt.Sprintf("there is no provider %q", provName), Hint: available(agentDir, env)}
	}
	if strings.TrimSpace(spec) != "" && len(p.Models) > 0 && !hasModel(p, id) {
		// A provider that lists its models only serves those; one without
		// a list (a local server) may serve any.
		return nil, Model{}, &Error{Kind: ErrBadModel, Detail: fmt.Sprintf("provider %q has no model %q", p.Name, id), Hint: available(agentDir, env)}
	}
	m := Model{Provider: p.Name, ID: id, Name: id, API: p.API}
	for _, mc := range p.Models {
		if mc.ID == id {
			if mc.Name != "" {
				m.Name = mc.Name
			}
			m.ContextWindow, m.MaxTokens = mc.ContextWindow, mc.MaxTokens
			break
		}
	}
	c, err := New(*p, env, opts)
	if err != nil {
		return nil, Model{}, err
	}
	return c, m, nil
}

func hasModel(p *settings.ProviderConfig, id string) bool {
	for _, mc := range p.Models {
		if mc.ID == id {
			return true
		}
	}
	return false
}

func findProvider(ps []settings.ProviderConfig, name string) *settings.ProviderConfig {
	for i := range ps {
		if ps[i].Name == name {
			return &ps[i]
		}
	}
	return nil
}

// setupHint says how to configure a first model.
func setupHint(agentDir string) string {
	return "set ANTHROPIC_API_KEY or OPENAI_API_KEY, or add a provider to " + filepath.Join(agentDir, settings.ModelsFile) +
		", then choose it with --model PROVIDER/ID or defaultProvider/defaultModel in " + filepath.Join(agentDir, settings.FileName)
}

// available lists the usable models for a hint (at most ten), or says how
// to set one up when there are none.
func available(agentDir string, env func(string) string) string {
	refs, _ := settings.AvailableModels(agentDir, env)
	if len(refs) == 0 {
		return setupHint(agentDir)
	}
	names := make([]string, 0, 10)
	for i, r := range refs {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(refs)-10))
			break
		}
		names = append(names, r.String())
	}
	return "available: " + strings.Join(names, ", ")
}

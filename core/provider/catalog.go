package provider

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// catalogJSON is pi-tui's built-in providers and models (catalog.json):
// usable with nothing but a key.
//
//go:embed catalog.json
var catalogJSON []byte

type catalogModel struct {
	pisettings.ModelConfig
	// Thinking is how an Anthropic model takes thinking: budget
	// (budget_tokens) or adaptive (an effort).
	Thinking string `json:"thinking"`
}

type catalogProvider struct {
	ID       string             `json:"id"`
	Name     string             `json:"name"`
	API      string             `json:"api"`
	BaseURL  string             `json:"baseUrl"`
	Env      []string           `json:"env"`      // key variables, first set wins
	OAuthEnv []string           `json:"oauthEnv"` // variables holding OAuth tokens pi-tui cannot use
	AnyModel bool               `json:"anyModel"` // also serves ids it does not list
	Compat   *pisettings.Compat `json:"compat"`
	Models   []catalogModel     `json:"models"`
}

// builtIns parses the embedded catalogue. It is parsed per use (it is
// small) so nothing package-wide can be changed by a caller.
func builtIns() ([]*providerInfo, error) {
	var doc struct {
		Providers []catalogProvider `json:"providers"`
	}
	if err := json.Unmarshal(catalogJSON, &doc); err != nil {
		// The file is part of the binary and tested: only a broken build
		// gets here.
		return nil, fmt.Errorf("the built-in model catalogue is invalid: %v", err)
	}
	out := make([]*providerInfo, 0, len(doc.Providers))
	for _, cp := range doc.Providers {
		p := &providerInfo{name: cp.ID, display: cp.Name, api: cp.API, baseURL: cp.BaseURL, env: cp.Env, oauthEnv: cp.OAuthEnv,
			builtIn: true, anyModel: cp.AnyModel}
		if cp.Compat != nil {
			p.compat = *cp.Compat
		}
		for _, cm := range cp.Models {
			m := modelFromConfig(p, cm.ModelConfig)
			m.Thinking = cm.Thinking
			p.models = append(p.models, m)
		}
		out = append(out, p)
	}
	return out, nil
}

// modelFromConfig fills a model of provider p from models.json's format,
// with pi's defaults for what it leaves out.
func modelFromConfig(p *providerInfo, mc pisettings.ModelConfig) ModelInfo {
	m := ModelInfo{Provider: p.name, ID: mc.ID, Name: mc.Name, API: mc.API, BaseURL: mc.BaseURL,
		ThinkingLevelMap: mc.ThinkingLevelMap, Input: mc.Input, ContextWindow: mc.ContextWindow, MaxTokens: mc.MaxTokens,
		Headers: mc.Headers, Compat: p.compat.Merge(mc.Compat)}
	if m.Name == "" {
		m.Name = m.ID
	}
	if m.API == "" {
		m.API = p.api
	}
	if m.BaseURL == "" {
		m.BaseURL = p.baseURL
	}
	if mc.Reasoning != nil {
		m.Reasoning = *mc.Reasoning
	}
	if len(m.Input) == 0 {
		m.Input = []string{"text"}
	}
	if m.ContextWindow <= 0 {
		m.ContextWindow = defaultContextWindow
	}
	if m.MaxTokens <= 0 {
		m.MaxTokens = defaultMaxTokens
	}
	if mc.Cost != nil {
		m.Cost = *mc.Cost
	}
	return m
}

// pi's defaults for a model that does not give its sizes.
const (
	defaultContextWindow = 128000
	defaultMaxTokens     = 16384
)

// BuiltIn reports whether a provider is one of pi's own (the built-in
// catalogue's), which pi runs whatever models.json says: a provider only
// models.json declares is gone, for pi too, while that file cannot be read.
func BuiltIn(name string) bool {
	ps, _ := builtIns()
	for _, p := range ps {
		if p.name == name {
			return true
		}
	}
	return false
}

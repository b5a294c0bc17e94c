// Package providers is the one view of every model provider pi and
// pi-tui know, and of how each is reached: pi-tui's catalogue and pi's
// models.json, auth.json and environment as the built-in engine reads
// them, and what the user's pi itself reports (its providers with a
// login, its extension-registered ones, which are ready). Reading it
// refreshes nothing, runs no key command and holds no secret.
package providers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
)

// How a provider is reached (Provider.By).
const (
	ByEnv    = "env"    // an environment variable holds the key
	ByModels = "models" // models.json's apiKey
	ByAuth   = "auth"   // an api_key entry in auth.json
	ByLogin  = "login"  // an account login (oauth) in auth.json
	ByNone   = "none"   // the provider needs no key (a local endpoint)
	ByPi     = "pi"     // pi reports it ready by means pi-tui cannot see (ambient credentials, an extension)
)

// Where a provider is known from (Provider.Known).
const (
	KnownPi        = "pi"          // pi's built-in providers
	KnownBuiltin   = "pi-tui"      // pi-tui's built-in catalogue
	KnownModels    = "models.json" // added by models.json
	KnownExtension = "extension"   // registered by a pi extension
)

// Provider is one provider and how it is reached.
type Provider struct {
	Name    string   `json:"name"`
	Display string   `json:"display,omitempty"`
	Known   []string `json:"known"`
	Ready   bool     `json:"ready"`
	// By says what makes it ready (By*); "" when it is not.
	By string `json:"by,omitempty"`
	// Source names it: the variable, "models.json", "auth.json".
	Source string `json:"source,omitempty"`
	// Expires is when an account login's access token expires (pi
	// refreshes it on use); Expired says it has.
	Expires *time.Time `json:"expires,omitempty"`
	Expired bool       `json:"expired,omitempty"`
	// Need says what to do to make it ready.
	Need   string   `json:"need,omitempty"`
	Models []string `json:"models"`
	// PiEngine and BuiltinEngine say which engine can use it now;
	// EngineNote says why the built-in engine cannot.
	PiEngine      bool   `json:"piEngine"`
	BuiltinEngine bool   `json:"builtinEngine"`
	EngineNote    string `json:"engineNote,omitempty"`
	// Login says `pi auth login` knows it (an account or a key pi stores).
	Login bool `json:"login"`
	// BaseURL is where a models.json or catalogue provider is served.
	BaseURL string `json:"baseUrl,omitempty"`
}

// State is every provider, with what could not be read.
type State struct {
	Providers []Provider `json:"providers"`
	// PiProblem says why pi's own view is missing (no usable pi, what to
	// install); "" when pi answered.
	PiProblem string `json:"piProblem,omitempty"`
	// Problems are files that could not be used and notes about keys.
	Problems []string `json:"problems,omitempty"`
}

// Find returns the provider called name.
func (s State) Find(name string) (Provider, bool) {
	for _, p := range s.Providers {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// Options say where to read.
type Options struct {
	AgentDir string
	Getenv   func(string) string
	// Pi is the user's pi; nil or with no Argv when there is none, and
	// PiProblem says why.
	Pi        *Pi
	PiProblem string
	Now       func() time.Time
}

// Read builds the state: the built-in engine's view from the files, then
// pi's (two commands, run side by side, offline).
func Read(ctx context.Context, o Options) State {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	reg := provider.Load(o.AgentDir, o.Getenv)
	st := State{Problems: reg.Problems(), PiProblem: o.PiProblem}
	auth, _ := pisettings.ReadAuth(o.AgentDir) // its error is among reg.Problems
	custom, _ := pisettings.ReadModels(o.AgentDir)
	byName := map[string]*Provider{}
	var order []string
	get := func(name string) *Provider {
		if p, ok := byName[name]; ok {
			return p
		}
		p := &Provider{Name: name}
		byName[name] = p
		order = append(order, name)
		return p
	}
	for _, v := range reg.Providers() {
		p := get(v.Name)
		p.Display, p.BaseURL, p.Models = v.Display, v.BaseURL, v.Models
		if v.BuiltIn {
			p.Known = append(p.Known, KnownBuiltin)
		} else {
			p.Known = append(p.Known, KnownModels)
		}
		p.BuiltinEngine = v.Ready
		if v.Ready {
			p.Ready, p.By, p.Source = true, byOf(v.From), v.From
		} else {
			p.Need = v.Hint
		}
		if v.Note != "" {
			p.EngineNote = v.Note
		}
	}
	for _, pc := range custom {
		p := get(pc.Name)
		if !slices.Contains(p.Known, KnownModels) {
			p.Known = append(p.Known, KnownModels)
		}
	}
	var piModels map[string][]string
	var piLogin []string
	if o.Pi != nil && len(o.Pi.Argv) > 0 {
		var errModels, errLogin error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); piModels, errModels = o.Pi.ListModels(ctx) }()
		go func() { defer wg.Done(); piLogin, errLogin = o.Pi.LoginProviders(ctx) }()
		wg.Wait()
		switch {
		case errModels != nil:
			st.PiProblem = errModels.Error()
		case errLogin != nil:
			st.PiProblem = errLogin.Error()
		}
	}
	for _, name := range piLogin {
		p := get(name)
		p.Login = true
		if !slices.Contains(p.Known, KnownPi) {
			p.Known = append(p.Known, KnownPi)
		}
	}
	for name, models := range piModels {
		p := get(name)
		if len(p.Known) == 0 {
			p.Known = []string{KnownExtension}
		}
		p.PiEngine = true
		p.Models = mergeIDs(p.Models, models)
		if !p.Ready {
			p.Ready, p.By, p.Need = true, ByPi, ""
		}
	}
	// auth.json's logins: pi-tui cannot use them, pi can.
	for _, e := range auth.Entries {
		p := get(e.Provider)
		if len(p.Known) == 0 {
			p.Known = []string{KnownExtension}
		}
		switch e.Type {
		case pisettings.AuthOAuth:
			if p.By == "" || p.By == ByPi || p.By == ByEnv {
				p.Ready, p.By, p.Source, p.Need = true, ByLogin, pisettings.AuthFile, ""
			}
			if e.Expires > 0 {
				t := time.UnixMilli(e.Expires)
				p.Expires = &t
				p.Expired = !t.After(o.Now())
			}
			p.EngineNote = "an account login needs the pi engine: pi-tui's built-in engine cannot use it"
		case pisettings.AuthAPIKey:
			if p.By == "" || p.By == ByPi {
				p.Ready, p.By, p.Source, p.Need = true, ByAuth, pisettings.AuthFile, ""
			}
		}
	}
	for _, name := range order {
		p := byName[name]
		if piModels != nil {
			// pi answered: it can use what it listed, and only that.
			_, p.PiEngine = piModels[name]
		} else if st.PiProblem == "" && o.Pi == nil {
			p.PiEngine = false
		}
		if p.Ready && !p.BuiltinEngine && p.EngineNote == "" && !slices.Contains(p.Known, KnownBuiltin) && !slices.Contains(p.Known, KnownModels) {
			p.EngineNote = "pi-tui's built-in engine does not know this provider: use the pi engine"
		}
		if !p.Ready && p.Need == "" {
			p.Need = needFor(*p)
		}
		st.Providers = append(st.Providers, *p)
	}
	sort.SliceStable(st.Providers, func(i, j int) bool {
		a, b := st.Providers[i], st.Providers[j]
		if a.Ready != b.Ready {
			return a.Ready
		}
		return a.Name < b.Name
	})
	return st
}

// byOf maps the registry's key source to By.
func byOf(from string) string {
	switch from {
	case "":
		return ByNone
	case pisettings.AuthFile:
		return ByAuth
	case pisettings.ModelsFile:
		return ByModels
	}
	return ByEnv
}

// needFor says how a provider that is not ready becomes ready.
func needFor(p Provider) string {
	if p.Login {
		return fmt.Sprintf("log in: pi-tui login %s", p.Name)
	}
	if slices.Contains(p.Known, KnownExtension) {
		return "log in with /login in pi (pi auth login does not load extensions)"
	}
	return "give it a key"
}

// mergeIDs adds the ids of b missing from a, keeping a's order.
func mergeIDs(a, b []string) []string {
	out := slices.Clone(a)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Describe says in a few words how p is reached, for a table or a list
// row: "env ANTHROPIC_API_KEY", "login, expires 2026-12-05 18:00".
func (p Provider) Describe(now time.Time) string {
	switch p.By {
	case ByEnv:
		return "env " + p.Source
	case ByModels:
		return "models.json apiKey"
	case ByAuth:
		return "key in auth.json"
	case ByLogin:
		s := "account login"
		if p.Expires != nil {
			if p.Expired {
				s += ", token expired " + p.Expires.Local().Format("2006-01-02 15:04") + " (pi refreshes it on use)"
			} else {
				s += ", token until " + p.Expires.Local().Format("2006-01-02 15:04")
			}
		}
		return s
	case ByNone:
		return "no key needed"
	case ByPi:
		return "ready in pi"
	}
	return "not ready"
}

// Engines says which engine can use p: "pi, built-in", "pi", "built-in"
// or "none".
func (p Provider) Engines() string {
	var e []string
	if p.PiEngine {
		e = append(e, "pi")
	}
	if p.BuiltinEngine {
		e = append(e, "built-in")
	}
	if len(e) == 0 {
		return "none"
	}
	return strings.Join(e, ", ")
}

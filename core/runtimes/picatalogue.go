package runtimes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/pi-tui/pi-tui/core/provider"
)

// pi's catalogue for the front ends: the models pi can run (its logins
// included), the commands it offers (extension commands, prompt templates,
// skills) and the thinking levels of the model it runs, asked of the
// session's pi through Call. What pi says of its models and commands holds
// for the life of one pi process (a changed login or extension is a new
// launch), so each answer is kept per launch: the /model picker and the
// "/" menu ask again at every look without a round trip to node.

// PiModel is one model of pi's catalogue (get_available_models).
type PiModel struct {
	Provider      string
	ID            string
	Name          string
	ContextWindow int
	MaxTokens     int
	Reasoning     bool
}

// Spec is the model as a model spec, PROVIDER/ID.
func (p PiModel) Spec() string { return p.Provider + "/" + p.ID }

// PiCommand is one of pi's commands (get_commands): sent as "/Name args"
// in a prompt, pi runs or expands it.
type PiCommand struct {
	Name        string
	Description string
	// Source is what kind it is: "extension", "prompt" (a template) or
	// "skill" (its Name starts with "skill:").
	Source string
	// Path is the file that defines it and Scope "user", "project" or
	// "temporary", when pi says.
	Path, Scope string
}

// PiThinking is what pi says of the model it runs: PROVIDER/ID (pi's
// default when the launch named none), the thinking levels it offers
// (["off"] for a model that does not reason) and the one in effect.
type PiThinking struct {
	Model  string
	Levels []string
	Level  string
}

// Catalogue is pi's catalogue of a process's sessions: the models, the
// commands and the thinking levels each session's pi offers, kept per
// launch. The manager makes one (Manager.Catalogue); it asks the runtimes
// only for a session's pi and whether it still runs (piRuns), so its
// surface is the three questions the programs ask
// (docs/adr/0090-interfaces-where-consumed.md).
type Catalogue struct {
	rts     piRuns
	mu      sync.Mutex
	answers map[string]launchAnswers // by session id, each tied to the pi process that gave it
}

// piRuns is what the catalogue needs of the runtimes (the manager): a
// session's pi, launched first when none runs; whether a pi is still the
// session's; and one of pi's own commands asked of it.
type piRuns interface {
	piRunOf(ctx context.Context, sessionID string) (process, error)
	isLive(sessionID string, run process) bool
	Call(ctx context.Context, sessionID, command string, params json.RawMessage) (json.RawMessage, error)
}

// Catalogue is pi's catalogue of the sessions' runtimes.
func (m *Manager) Catalogue() *Catalogue { return m.catalogue }

// launchAnswers are one pi process's answers, by command.
type launchAnswers struct {
	run  process
	data map[string]json.RawMessage
}

func (c *Catalogue) get(sessionID string, run process, command string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.answers[sessionID]
	if !ok || a.run != run {
		return nil, false
	}
	data, ok := a.data[command]
	return data, ok
}

// put keeps an answer, and forgets those of pi processes that have ended
// (live tells which are still the sessions' runtimes).
func (c *Catalogue) put(sessionID string, run process, command string, data json.RawMessage, live func(string, process) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answers == nil {
		c.answers = map[string]launchAnswers{}
	}
	for id, a := range c.answers {
		if !live(id, a.run) {
			delete(c.answers, id)
		}
	}
	a, ok := c.answers[sessionID]
	if !ok || a.run != run {
		a = launchAnswers{run: run, data: map[string]json.RawMessage{}}
	}
	a.data[command] = data
	c.answers[sessionID] = a
}

// piAnswer is command's answer from the session's pi: kept from this
// launch, else asked (Call) and kept.
func (c *Catalogue) piAnswer(ctx context.Context, sessionID, command string) (json.RawMessage, error) {
	run, err := c.rts.piRunOf(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if data, ok := c.get(sessionID, run, command); ok {
		return data, nil
	}
	data, err := c.rts.Call(ctx, sessionID, command, nil)
	if err != nil {
		return nil, fmt.Errorf("pi's %s: %w", command, err)
	}
	c.put(sessionID, run, command, data, c.rts.isLive)
	return data, nil
}

// Models lists the models the session's pi can run, as pi lists them
// (its built-in catalogue, models.json, and the providers its logins
// reach), in pi's order; entries without a provider or an id are left out.
func (c *Catalogue) Models(ctx context.Context, sessionID string) ([]PiModel, error) {
	data, err := c.piAnswer(ctx, sessionID, "get_available_models")
	if err != nil {
		return nil, err
	}
	var ans struct {
		Models []struct {
			Provider      string `json:"provider"`
			ID            string `json:"id"`
			Name          string `json:"name"`
			ContextWindow int    `json:"contextWindow"`
			MaxTokens     int    `json:"maxTokens"`
			Reasoning     bool   `json:"reasoning"`
		} `json:"models"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("pi's get_available_models answer could not be read: %v", err)
	}
	out := make([]PiModel, 0, len(ans.Models))
	for _, p := range ans.Models {
		if !specPart(p.Provider) || !specPart(p.ID) {
			continue
		}
		out = append(out, PiModel{Provider: p.Provider, ID: p.ID, Name: p.Name, ContextWindow: p.ContextWindow, MaxTokens: p.MaxTokens, Reasoning: p.Reasoning})
	}
	return out, nil
}

// Commands lists the commands the session's pi offers: its extensions'
// commands, prompt templates and skills (pi's own interactive commands are
// not among them). A name that could not be typed as one word is left out.
func (c *Catalogue) Commands(ctx context.Context, sessionID string) ([]PiCommand, error) {
	data, err := c.piAnswer(ctx, sessionID, "get_commands")
	if err != nil {
		return nil, err
	}
	var ans struct {
		Commands []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Source      string `json:"source"`
			SourceInfo  struct {
				Path  string `json:"path"`
				Scope string `json:"scope"`
			} `json:"sourceInfo"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("pi's get_commands answer could not be read: %v", err)
	}
	out := make([]PiCommand, 0, len(ans.Commands))
	for _, pc := range ans.Commands {
		if !specPart(pc.Name) {
			continue
		}
		out = append(out, PiCommand{Name: pc.Name, Description: pc.Description, Source: pc.Source, Path: pc.SourceInfo.Path, Scope: pc.SourceInfo.Scope})
	}
	return out, nil
}

// Thinking asks the session's pi for the thinking levels of the model
// it runs and the level in effect. Levels pi-tui does not know are left
// out; a model without reasoning has ["off"].
func (c *Catalogue) Thinking(ctx context.Context, sessionID string) (PiThinking, error) {
	data, err := c.piAnswer(ctx, sessionID, "get_available_thinking_levels")
	if err != nil {
		return PiThinking{}, err
	}
	var ans struct {
		Levels []string `json:"levels"`
	}
	if err := json.Unmarshal(data, &ans); err != nil {
		return PiThinking{}, fmt.Errorf("pi's get_available_thinking_levels answer could not be read: %v", err)
	}
	var out PiThinking
	for _, l := range ans.Levels {
		// pi's "max" is read as xhigh, the highest level pi-tui knows: a
		// model with both has it once.
		if l, err := provider.ParseThinkingLevel(l); err == nil && !slices.Contains(out.Levels, l) {
			out.Levels = append(out.Levels, l)
		}
	}
	if len(out.Levels) == 0 {
		out.Levels = []string{"off"}
	}
	// The level is the launch's (--thinking), so it is kept with it too.
	state, err := c.piAnswer(ctx, sessionID, "get_state")
	if err != nil {
		return PiThinking{}, err
	}
	var st struct {
		Model struct {
			Provider string `json:"provider"`
			ID       string `json:"id"`
		} `json:"model"`
		ThinkingLevel string `json:"thinkingLevel"`
	}
	if json.Unmarshal(state, &st) == nil {
		out.Level = provider.ClampThinking(out.Levels, st.ThinkingLevel)
		if specPart(st.Model.Provider) && specPart(st.Model.ID) {
			out.Model = st.Model.Provider + "/" + st.Model.ID
		}
	}
	if out.Level == "" {
		out.Level = out.Levels[0]
	}
	return out, nil
}

// specPart reports whether s can be one part of a model spec or a
// command name: not empty, no white space or control characters.
func specPart(s string) bool {
	return s != "" && len(s) <= 256 && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

package main

import (
	"os"
	"strconv"

	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// The fake's catalogue: the models and commands the script lists, and
// the model the launch named, as pi answers for them.

// argValue is the value after flag in the arguments ("" without it).
func argValue(flag string) string {
	for i, a := range os.Args {
		if a == flag && i+1 < len(os.Args) {
			return os.Args[i+1]
		}
	}
	return ""
}

// models is get_available_models' list.
func (f *fake) models() []fakepi.Model {
	if len(f.script.Models) > 0 {
		return f.script.Models
	}
	return []fakepi.Model{{Provider: "fake", ID: "fake-model", Name: "Fake Model", ContextWindow: f.window(), MaxTokens: 4096}}
}

// window is get_state's contextWindow for the default model.
func (f *fake) window() int {
	w, _ := strconv.Atoi(os.Getenv("FAKEPI_CONTEXT"))
	if w == 0 {
		w = 128000
	}
	return w
}

// current is the model the launch named (--provider, --model) or
// set_model chose, as the catalogue has it; else the catalogue's first.
func (f *fake) current() fakepi.Model {
	f.mu.Lock()
	prov, id := f.tuned.provider, f.tuned.model
	f.mu.Unlock()
	all := f.models()
	for _, m := range all {
		if m.ID == id && (prov == "" || m.Provider == prov) {
			return m
		}
	}
	if id != "" {
		return fakepi.Model{Provider: prov, ID: id, ContextWindow: f.window(), MaxTokens: 4096}
	}
	return all[0]
}

func modelObj(m fakepi.Model) obj {
	window := m.ContextWindow
	if window == 0 {
		window = 128000
	}
	name := m.Name
	if name == "" {
		name = m.ID
	}
	return obj{"id": m.ID, "name": name, "provider": m.Provider, "api": "openai-completions", "reasoning": m.Reasoning,
		"input": []string{"text"}, "contextWindow": window, "maxTokens": max(m.MaxTokens, 1)}
}

// catalogue answers the catalogue commands; false for any other.
func (f *fake) catalogue(id any, typ string) bool {
	switch typ {
	case "get_available_models", "get_available_thinking_levels", "get_commands":
		f.logf("asked %s", typ)
	}
	switch typ {
	case "get_available_models":
		var out []any
		for _, m := range f.models() {
			out = append(out, modelObj(m))
		}
		f.respond(id, typ, obj{"models": out}, "")
	case "get_available_thinking_levels":
		levels := []string{"off"}
		if f.current().Reasoning {
			levels = []string{"off", "minimal", "low", "medium", "high"}
		}
		f.respond(id, typ, obj{"levels": levels}, "")
	case "get_commands":
		out := []any{obj{"name": "pi-tui-branch", "source": "extension"}}
		for _, c := range f.script.Commands {
			e := obj{"name": c.Name, "source": c.Source}
			if c.Description != "" {
				e["description"] = c.Description
			}
			if c.Path != "" || c.Scope != "" {
				e["sourceInfo"] = obj{"path": c.Path, "source": "local", "scope": c.Scope, "origin": "top-level"}
			}
			out = append(out, e)
		}
		f.respond(id, typ, obj{"commands": out}, "")
	default:
		return false
	}
	return true
}

package provider

import "github.com/pi-tui/pi-tui/core/pisettings"

// Source is where the model a prompt runs was chosen. A user who named
// no model sees it beside the model's name, so "why this model?" has an
// answer before the first prompt.
type Source int

const (
	// SourceNamed: the spec named the model (--model, /model, the
	// session's own choice).
	SourceNamed Source = iota + 1
	// SourceDefault: settings.json's defaultProvider and defaultModel.
	SourceDefault
	// SourceDefaultProvider: settings.json's defaultProvider without a
	// defaultModel: that provider's first model.
	SourceDefaultProvider
	// SourceFirstUsable: settings.json names no default: the first model
	// with a key, models.json's own providers first.
	SourceFirstUsable
)

// Origin says in a few words where the model comes from, for a status
// line: "settings.json", "first in models.json", "key in
// ANTHROPIC_API_KEY"; "" for a model the spec named (the caller knows
// who named it) or one whose source is not known.
func (d Description) Origin() string {
	switch d.Source {
	case SourceDefault:
		return pisettings.FileName
	case SourceDefaultProvider:
		return pisettings.FileName + "'s provider"
	case SourceFirstUsable:
		switch {
		case d.Custom:
			return "first in " + pisettings.ModelsFile
		case d.KeyFrom != "":
			return "key in " + d.KeyFrom
		}
		return "first usable"
	}
	return ""
}

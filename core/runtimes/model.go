package runtimes

import (
	"context"

	"github.com/pi-tui/pi-tui/core/piengine"
	"github.com/pi-tui/pi-tui/core/provider"
)

// ModelChoice is the model a prompt would run and where it comes from.
type ModelChoice struct {
	provider.Description
	// ByPi says the pi engine would run the prompt with what pi-tui cannot
	// use itself: a model it cannot resolve, or one it has no key for (pi
	// has its own logins and catalogue). Model then names what pi is
	// asked for, and is empty when pi picks its own.
	ByPi bool
}

// Model is the model a prompt naming spec would run ("" names none:
// settings.json's default, else the first model with a key), resolved
// as a launch resolves it (build: the provider's resolution, or
// Options.Resolve, then pi's own when the pi engine runs and pi-tui
// cannot resolve it), without launching anything, building a client or
// running a key command. The status bar and Settings show it, so what
// they name and what a prompt runs cannot disagree. The error is the one
// a prompt would fail with (no model configured: it says how to set one
// up).
func (m *Manager) Model(ctx context.Context, spec string) (ModelChoice, error) {
	if m.opts.Resolve != nil {
		// A script's or a test's own client: it answers every spec.
		_, mod, err := m.opts.Resolve(spec)
		d := provider.Description{Model: mod, Usable: err == nil}
		if name, _ := provider.SplitThinking(spec); name != "" {
			d.Source = provider.SourceNamed
		}
		return ModelChoice{Description: d}, err
	}
	d, err := provider.Describe(m.opts.Host.Places.AgentDir, m.opts.Env, spec)
	if err == nil && d.Usable {
		return ModelChoice{Description: d}, nil
	}
	// pi-tui cannot run it itself; the pi engine may (asked only now: it
	// may have to ask pi its version).
	prefs, perr := m.opts.Host.Preferences(ctx)
	if perr != nil {
		return ModelChoice{Description: d}, err
	}
	eng, eerr := m.chooseEngine(ctx, prefs.Engine)
	switch {
	case eerr != nil:
		return ModelChoice{Description: d}, err // no prompt runs; the model's own problem still needs fixing
	case err == nil:
		// A key only pi has: pi runs the model pi-tui resolved.
		return ModelChoice{Description: d, ByPi: eng.name == piengine.Name}, nil
	}
	mod, err := m.unresolved(eng, spec, err)
	if err != nil {
		return ModelChoice{}, err
	}
	d = provider.Description{Model: mod}
	switch name, _ := provider.SplitThinking(spec); {
	case name != "":
		d.Source = provider.SourceNamed
	case mod.ID != "":
		d.Source = provider.SourceDefault // piModel: settings.json's
	}
	return ModelChoice{Description: d, ByPi: true}, nil
}

// unresolved is what a launch does when pi-tui cannot resolve the model
// (err): on the pi engine, pi resolves it itself (a subscription login
// only pi holds, a provider only pi knows) and the runtime is launched
// with what piModel names; on the built-in engine err stands.
func (m *Manager) unresolved(eng choice, spec string, err error) (provider.Model, error) {
	if eng.name != piengine.Name {
		return provider.Model{}, err
	}
	return piModel(m.opts.Host.Places.AgentDir, spec)
}

package runtimes

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/core/pisettings"
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
		return ModelChoice{Description: d, ByPi: eng.desc.Caps.Models}, nil
	}
	mod, _, err := m.unresolved(eng, spec, err)
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
//
// A models.json (or auth.json) that cannot be read is the exception: pi
// ignores such a file, so a model whose provider only that file declares
// cannot run on pi either. err, which names the file, its line and its
// column, stands for it, rather than pi being launched to say "Unknown
// provider" with no word of the file. A model of one of pi's own
// providers, or pi's own choice, still runs; notice then says the file's
// error, as pi says it when it starts in a terminal.
func (m *Manager) unresolved(eng choice, spec string, err error) (mod provider.Model, notice string, _ error) {
	if !eng.desc.Caps.Models {
		return provider.Model{}, "", err
	}
	mod, perr := piModel(m.opts.Host.Places.AgentDir, spec)
	if perr != nil {
		return provider.Model{}, "", perr
	}
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrConfig {
		return mod, "", nil
	}
	models := filepath.Join(m.opts.Host.Places.AgentDir, pisettings.ModelsFile)
	if mod.Provider != "" && !provider.BuiltIn(mod.Provider) && strings.Contains(pe.Detail, models) {
		return provider.Model{}, "", fmt.Errorf("%s; pi cannot run %s/%s without it (it ignores the file too)", pe.Detail, mod.Provider, mod.ID)
	}
	return mod, pe.Detail + "; pi runs without it, as it does in a terminal", nil
}

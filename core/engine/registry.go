package engine

import (
	"context"
	"errors"
)

// Descriptor is an engine as the registry holds it: its name, what it
// can do, how to find what it runs, and how to start it. The composition
// root builds one per engine (agent.Describe, piengine.Describe, with
// their Start); the manager and the programs ask it instead of comparing
// names, and the manager starts an engine only through it.
type Descriptor struct {
	// Name is how engine.Info, runtime_launched, the engine setting and
	// --engine name it: "pi", "builtin".
	Name string
	// Title names it in a sentence, before "engine": "pi", "built-in".
	Title string
	// About says what it is, for Settings, when it has nothing to find:
	// "pi-tui's own engine".
	About string
	Caps  Capabilities
	// Locate finds the program the engine runs and its version; nil: the
	// engine is part of pi-tui and always at hand. Every error is one
	// line saying what is wrong and what to install or set.
	Locate func(ctx context.Context) (Found, error)
	// Unfound is what auto says when it passes the engine over because
	// Locate failed with err: "" when nobody asked for it (nothing named
	// a program of its), so the fallback is silent.
	Unfound func(err error) string
	// Start constructs the engine for one runtime from what the manager
	// hands it (Launch). A Process engine's start may take as long as its
	// program takes to come up, and it is called without the manager's
	// lock; an engine in pi-tui's process must start at once, under it.
	// Every registered engine has one: only the composition root names
	// the packages that construct engines (ADR 0094).
	Start func(ctx context.Context, l Launch) (Engine, error)
}

// Capabilities are what an engine does beyond the Engine contract: what
// the runtime manager and the programs would otherwise decide by its
// name. What an engine changes in place is asked of the running engine
// itself (Retuner, Engine.SetSystem).
type Capabilities struct {
	// Process: the engine runs as a program of its own (Locate finds
	// it). Its launch takes as long as the program takes to start, so the
	// manager launches it without holding its lock; the live ones are
	// capped (the maxPiRuntimes setting); and its version is its own, so
	// the status bar shows it beside the name. An engine in pi-tui's
	// process is named alone: its version is pi-tui's.
	Process bool
	// Models: the engine has its own model catalogue and logins. It runs
	// a model pi-tui cannot resolve or has no key for (launched with what
	// settings.json names, the engine resolving it), /model lists its
	// catalogue, and it cannot reach a model client a script or a test
	// brings, so auto passes it over then.
	Models bool
	// Thinking: the engine says which thinking levels its model takes
	// (pi-tui's catalogue says it otherwise).
	Thinking bool
	// Commands: the engine has slash commands of its own (extension
	// commands, prompt templates, skills). The "/" menu lists them, and
	// one typed is sent as typed for the engine to run or expand.
	Commands bool
	// Calls: the engine answers commands of its own protocol
	// (runtimes.Manager.Call); `pi-tui rpc` passes a command it does not
	// know on to it.
	Calls bool
	// OwnPrompt: the engine builds its own system prompt around pi-tui's
	// sections and reports what it sent; /context shows that account
	// rather than the prompt pi-tui would build.
	OwnPrompt bool
	// Logins: the engine's program keeps the provider logins and keys;
	// the Providers screen runs it to log in and out.
	Logins bool
}

// Found is the program a Locate found.
type Found struct {
	Path string   // the executable, absolute
	Argv []string // the command line that runs it: Path, then any arguments before its own
	// Version is what the program said of itself ("1.6.0").
	Version string
	// Cached: Version was kept from an earlier process, not asked in
	// this one; the launched program confirms it (Settle).
	Cached bool
	// Settle takes the version the launched program reported ("" when it
	// could not tell). It confirms Version, or, for a Cached one the
	// program does not confirm, forgets it and returns an error wrapping
	// ErrVersionChanged: the caller ends the program before sending it
	// anything and locates it again. nil: nothing to confirm.
	Settle func(reported string) error
}

// ErrVersionChanged is Settle's error when the program launched on a
// kept version runs another: it changed under its path.
var ErrVersionChanged = errors.New("the version changed since it was last asked")

// Registry holds the engines pi-tui can run, in the order auto prefers
// them. It is filled once, by the composition root, and read-only after:
// safe for concurrent use.
type Registry struct {
	list []Descriptor
}

// NewRegistry holds ds in that order (auto takes the first that can
// run). A name given twice keeps its first descriptor.
func NewRegistry(ds ...Descriptor) *Registry {
	r := &Registry{}
	for _, d := range ds {
		if _, dup := r.Get(d.Name); !dup {
			r.list = append(r.list, d)
		}
	}
	return r
}

// Get returns the engine named name.
func (r *Registry) Get(name string) (Descriptor, bool) {
	for _, d := range r.list {
		if d.Name == name {
			return d, true
		}
	}
	return Descriptor{}, false
}

// All returns the engines in the order auto prefers them.
func (r *Registry) All() []Descriptor {
	return append([]Descriptor(nil), r.list...)
}

// Names returns the engines' names, in order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, d := range r.list {
		out[i] = d.Name
	}
	return out
}

// First returns the first engine whose capabilities has accepts (the
// engine whose program keeps the logins, say).
func (r *Registry) First(has func(Capabilities) bool) (Descriptor, bool) {
	for _, d := range r.list {
		if has(d.Caps) {
			return d, true
		}
	}
	return Descriptor{}, false
}

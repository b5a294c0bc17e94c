// Package host is the composition root: it builds, once per process, the
// host core that every user interface uses (the terminal UI, each SSH
// client, the prompt and rpc commands, the other commands): the store
// and the services over it (core/services: places, projects and trust,
// memory, preferences, sessions, worktrees, approval rules, the event
// broker), the registry of engines the runtimes run on (the one place
// that names them: agent's and piengine's descriptors) and the runtime
// manager. cmd/pi-tui and `serve` open it;
// nothing else constructs these, so a terminal session, an SSH session
// and a script see the same state and the same conflicts
// (docs/adr/0041-composition-root.md).
package host

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/piengine"
	"github.com/pi-tui/pi-tui/core/pirun"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/services"
)

// Options tune what the root builds.
type Options struct {
	// Env is the environment the host runs with (API keys, git's PATH);
	// nil means none is set.
	Env func(string) string
	// Runtime tunes the runtime manager: a headless run's event writer
	// and approver, a script's model client, tests' timeouts. Its Host,
	// Env and Engines are the root's.
	Runtime runtimes.Options
	// Engines are the engines sessions run on; nil: DefaultEngines.
	Engines *engine.Registry
}

// Host is the host core. The services are promoted (h.Projects,
// h.Memory, h.Events, h.Preferences, …); the store is not reachable
// through it.
type Host struct {
	*services.Services
	// Runtimes runs the agent sessions of every program of the process.
	Runtimes *runtimes.Manager
	// Engines are the engines the runtimes run on, in the order auto
	// prefers them: Settings and the Providers screen ask them for the
	// programs they run (pi's path and version) and what each can do.
	Engines *engine.Registry

	// stopClean ends the start's checkpoint clean-up; cleaned is closed
	// when it has ended.
	stopClean context.CancelFunc
	cleaned   chan struct{}
}

// Open opens the store in places.DataDir and builds the services and the
// runtime manager over it. Close releases them.
func Open(ctx context.Context, places paths.Places, opts Options) (*Host, error) {
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	if opts.Engines == nil {
		opts.Engines = DefaultEngines(places, opts.Env)
	}
	svc, err := services.Open(ctx, places, services.Options{Env: opts.Env, Engines: opts.Engines.Names()})
	if err != nil {
		return nil, err
	}
	ro := opts.Runtime
	ro.Host, ro.Env, ro.Engines = svc, opts.Env, opts.Engines
	rts, err := runtimes.New(ro)
	if err != nil {
		svc.Close()
		return nil, err
	}
	h := &Host{Services: svc, Runtimes: rts, Engines: opts.Engines, cleaned: make(chan struct{})}
	// The checkpoints of sessions that are gone (deleted by pi, or while a
	// removal failed) go in the background: no program waits for it.
	cctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	h.stopClean = stop
	go func() {
		defer close(h.cleaned)
		// A clean-up that fails or is cut short leaves only what the next
		// start removes.
		_ = svc.Checkpoints.Clean(cctx)
	}()
	return h, nil
}

// DefaultEngines are the engines pi-tui ships, in the order auto prefers
// them: the user's pi (PI_TUI_PI, else pi on PATH, read from env; one
// Locator for the process, its versions kept in the data dir so a
// one-shot prompt need not start node to ask pi's version again), then
// pi-tui's own. The root is where each gets its constructor
// (engine.Descriptor.Start, ADR 0094): pi with pi-tui's bridge around it
// (core/pirun; one Runner, so the bridge extension is written once) and
// the built-in agent (agent.Start); the runtime manager names neither.
func DefaultEngines(places paths.Places, env func(string) string) *engine.Registry {
	loc := &piengine.Locator{Getenv: env}
	if places.DataDir != "" {
		loc.VersionsFile = filepath.Join(places.DataDir, "pi-versions.json")
	}
	pi := piengine.Describe(loc)
	pi.Start = (&pirun.Runner{}).Start
	builtin := agent.Describe()
	builtin.Start = agent.Start
	return engine.NewRegistry(pi, builtin)
}

// Close ends the checkpoint clean-up, retires the runtimes (letting
// aborted turns store what arrived) and then closes the store under them.
func (h *Host) Close() error {
	h.stopClean()
	<-h.cleaned
	return errors.Join(h.Runtimes.Close(), h.Services.Close())
}

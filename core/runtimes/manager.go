// Package runtimes manages runtimes: one engine (engine.Engine: pi-tui's
// own agent, or pi) bound to one session, launched with metadata whose
// fingerprint decides reuse. Before each prompt the host
// rebuilds the spec; an idle runtime with the same fingerprint is reused,
// a different one is retired and a new one launched with the session's
// history from the store. Idle runtimes are retired proactively when their
// root instructions or memory change, and after an idle TTL. The host side
// of the instruction preflight lives here too (proxy.go).
//
// The manager makes parts with jobs and surfaces of their own, which it
// hands the programs, and which ask it only what a small unexported
// interface names (docs/adr/0090-interfaces-where-consumed.md): the
// session façade (Sessions, sessions.go: open, branch, fork, delete),
// pi's catalogue (Catalogue, picatalogue.go: its models, commands and
// thinking levels) and plan mode (Plans, plan.go).
//
// One job per file: lifecycle.go launches, reuses and retires; build.go
// builds the spec; idle.go times idle runtimes out; watch.go retires
// them when their instructions or memory change (one road, ADR 0084);
// approve.go routes approvals; timing.go keeps the timing log; ends.go
// counts the turns' ends; resolvers.go caches instruction resolvers;
// live.go finds a session's live runtime; runs.go runs prompts on the
// engines; context.go answers /context. This file holds the manager and
// its event path.
package runtimes

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// Options configure a Manager.
type Options struct {
	// Host is the host core's services (the composition root, core/host,
	// builds them and the manager); the manager's sessions, worktrees
	// and approval rules are theirs.
	Host *services.Services
	Env  func(string) string
	// Provider tunes model clients (retries, timeouts).
	Provider provider.Options
	// PreflightTimeout bounds one preflight; 0 means 2 s.
	PreflightTimeout time.Duration
	// IdleTTL retires idle runtimes; 0 means the host preference.
	IdleTTL time.Duration
	// Approve decides tool calls that need approval while no program
	// shows the session (headless runs); nil denies them. A program showing
	// the session is asked instead, through the host's event broker.
	Approve toolpolicy.Approver
	// Tools is the tool set; nil means all.
	Tools []string
	// Resolve picks the model client for a model spec ("" = the default);
	// nil means provider.Resolve over the agent dir's models.json and
	// settings.json. Scripts and tests pass their own client here.
	Resolve func(modelSpec string) (provider.Client, provider.Model, error)
	// WrapPreflight lets tests slow down or break the host side of the
	// preflight proxy.
	WrapPreflight func(toolpolicy.Preflighter) toolpolicy.Preflighter
	// WrapCheckpoints lets tests watch the checkpoints a runtime takes
	// (its engine's calls) and the root it records them in.
	WrapCheckpoints func(root string, c toolpolicy.Checkpointer) toolpolicy.Checkpointer
	Now             func() time.Time
	// Engines are the engines a runtime can run on, in the order auto
	// prefers them, each with its constructor (Descriptor.Start); the
	// composition root (core/host) fills it. Required.
	Engines *engine.Registry
	// Engine overrides the engine setting for this manager's life (auto
	// or an engine's name; --engine); "" means PI_TUI_ENGINE, else the
	// setting.
	Engine string
	// PiEnv is added to the environment pi runs with (tests give the
	// fake pi its script here).
	PiEnv []string
}

// Runtime is a launched engine bound to one session.
type Runtime struct {
	Spec Spec
	// Engine runs the session's agent; the manager knows it by the
	// interface only (the builtin agent, or pi).
	Engine  engine.Engine
	Session *sessions.Session

	pi        process // the engine as a program of its own (pi); nil for one in pi-tui's process
	prewarmed bool    // launched by Prewarm, not yet used by a prompt
	notice    string  // said when it launches (choice.notice)
	fp        string
	reserved  bool          // handed out by Prepare; its prompt has not ended
	ttl       time.Duration // idle TTL in force when the spec was built
	lastUsed  time.Time
	idle      *time.Timer
	// recorder records the session's file-changing tool calls in the
	// runtime's root (nil: the host keeps no checkpoints); stopPrewarm
	// ends its first walk, started when the runtime was installed.
	recorder    *checkpoints.Recorder
	stopPrewarm context.CancelFunc
}

// busy reports whether the runtime's engine runs a prompt or compaction.
func (rt *Runtime) busy() bool { return rt.Engine.State().Busy }

// Manager owns the runtimes of one host.
type Manager struct {
	opts     Options
	sessions *sessions.Manager
	// worktrees verifies the sessions' worktree bindings (and caches
	// what git says of them); the front ends share it.
	worktrees *worktree.Service
	seed      maphash.Seed // for spec fingerprints

	mu        managerLock // its Unlock sends what was noted under it (lock.go)
	runtimes  map[string]*Runtime
	resolvers map[string]*instructions.Resolver
	models    map[string]modelPick // resolved model specs (resolvers.go)
	frames    map[string]framed    // memory sections per project root (prompt.go)
	watcher   *fsnotify.Watcher
	watched   map[string]int
	last      map[string]events.Event // last launch/reuse/retire per session
	closed    bool
	running   sync.WaitGroup // prompts and compactions in flight
	prewarms  sync.WaitGroup // the runtimes' first checkpoint walks
	// launching holds the sessions whose pi is starting (without m.mu);
	// the channel closes when the launch has ended either way.
	launching map[string]chan struct{}
	catalogue *Catalogue // pi's models and commands per launch (picatalogue.go)

	timing *timingLog // timing.go
	// stopWatching ends the watch of memory saves; watching counts it and
	// the file watcher's goroutine (watch.go).
	stopWatching context.CancelFunc
	watching     sync.WaitGroup
	// allowed holds "allow for this session" answers (session id + tool),
	// for the manager's life, whichever program gave them.
	allowed map[string]bool
	// facade opens, branches, forks and deletes sessions (sessions.go).
	facade *Sessions
	// plans holds the sessions in plan mode (plan.go).
	plans *Plans
	// sent holds, per session, what its pi last reported it sent the
	// model (engine.Sent, for /context: context.go).
	sent sync.Map
	// ends counts, per session and kind, the turn ends published, so that
	// every Prompt and Compact ends with one (ends.go).
	ends turnEnds
}

// New returns a Manager. It starts a file watcher; Close stops it.
func New(opts Options) (*Manager, error) {
	if opts.Engines == nil || len(opts.Engines.Names()) == 0 {
		return nil, errors.New("the runtime manager has no engines to run: the composition root (core/host) registers them")
	}
	for _, d := range opts.Engines.All() {
		if d.Start == nil {
			return nil, fmt.Errorf("the %s engine has no constructor (engine.Descriptor.Start): the composition root (core/host) sets it", d.Name)
		}
	}
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Provider.Commands == nil {
		// A key's !command runs once for the manager's life, as pi runs
		// it once per process.
		opts.Provider.Commands = provider.NewCommandCache()
	}
	m := &Manager{opts: opts, sessions: opts.Host.Sessions, seed: maphash.MakeSeed(), runtimes: map[string]*Runtime{},
		resolvers: map[string]*instructions.Resolver{}, models: map[string]modelPick{}, frames: map[string]framed{}, watched: map[string]int{}, last: map[string]events.Event{},
		allowed: map[string]bool{}, launching: map[string]chan struct{}{}}
	m.mu.emit = m.emit
	m.worktrees = opts.Host.Worktrees
	m.plans = newPlans(opts.Host.Events)
	m.catalogue = &Catalogue{rts: m}
	m.timing = &timingLog{dataDir: opts.Host.Places.DataDir, now: opts.Now}
	m.facade = &Sessions{rts: m, store: opts.Host.Sessions}
	if w, err := fsnotify.NewWatcher(); err == nil {
		m.watcher = w
		m.watching.Add(1)
		go m.watch(w)
	}
	ctx, stop := context.WithCancel(context.Background())
	m.stopWatching = stop
	m.watching.Add(2)
	m.watchMemory(ctx)
	m.watchFolders(ctx)
	return m, nil
}

// Close retires every runtime and stops watching.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	for _, rt := range m.runtimes {
		rt.Engine.Abort()
		m.retireLocked(rt, ReasonShutdown)
	}
	w := m.watcher
	m.mu.Unlock()
	// Let aborted turns store what arrived before the caller closes the
	// store under them.
	// The retired runtimes' checkpoint walks end too, before the store
	// saves what they cached.
	done := make(chan struct{})
	go func() { m.running.Wait(); m.prewarms.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	m.stopWatching()
	if w != nil {
		w.Close()
	}
	m.watching.Wait()
	return m.timing.close()
}

// emit publishes the events of engines, the watcher and timers to the
// host's broker, which never blocks on a program: the UI, SSH clients and
// the headless commands (rpc, prompt --json) all subscribe there. A file
// tool's end is logged to timing.log first.
func (m *Manager) emit(e events.Event) {
	m.ends.note(e)
	if end, ok := e.(events.ToolEnded); ok && end.Preflight != nil {
		m.timing.log(end)
	}
	m.opts.Host.Events.Publish(e)
}

// emitter is the publisher a runtime's engine is given: its events go
// through emit.
type emitter struct{ m *Manager }

func (e emitter) Publish(ev events.Event) { e.m.emit(ev) }

// Events is the broker programs subscribe to (the host's).
func (m *Manager) Events() *events.Broker { return m.opts.Host.Events }

// note records a runtime event. Called with m.mu held, it only queues
// the event: m.mu.Unlock sends it, after the lock is released, so a slow
// event reader (a blocked stdout) never holds the manager.
func (m *Manager) note(e events.Event) {
	m.last[e.Session()] = e
	m.mu.send(e)
}

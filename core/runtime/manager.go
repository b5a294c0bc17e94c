// Package runtime manages agent runtimes: one agent bound to one session,
// launched with metadata whose fingerprint decides reuse (DESIGN §5). Before
// each prompt the host rebuilds the spec; an idle runtime with the same
// fingerprint is reused, a different one is retired and a new one launched
// with the session's history from the store. Idle runtimes are retired
// proactively when their root instructions or memory change, and after an
// idle TTL. The host side of the instruction preflight lives here too.
package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/projects"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// TimingFile is the timing log in the data dir: one JSON line per tool call.
const TimingFile = "timing.log"

// Options configure a Manager.
type Options struct {
	Host *host.Host
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
	Approve agent.Approver
	// OnEvent receives runtime and agent events, one at a time, before
	// they are published to the broker. It may block (a headless run's
	// stdout); programs subscribe to Host.Events instead.
	OnEvent func(events.Event)
	// Tools is the tool set; nil means all.
	Tools []string
	// Resolve picks the model client for a model spec ("" = the default);
	// nil means provider.Resolve over the agent dir's models.json and
	// settings.json. Scripts and tests pass their own client here.
	Resolve func(modelSpec string) (provider.Client, provider.Model, error)
	// WrapPreflight lets tests slow down or break the host side of the
	// preflight proxy.
	WrapPreflight func(agent.Preflighter) agent.Preflighter
	Now           func() time.Time
}

// Runtime is a launched engine bound to one session.
type Runtime struct {
	Spec Spec
	// Engine runs the session's agent; the manager knows it by the
	// interface only (the builtin agent, or pi).
	Engine  engine.Engine
	Session *session.Session

	fp       string
	reserved bool          // handed out by Prepare; its prompt has not ended
	ttl      time.Duration // idle TTL in force when the spec was built
	lastUsed time.Time
	idle     *time.Timer
}

// busy reports whether the runtime's engine runs a prompt or compaction.
func (rt *Runtime) busy() bool { return rt.Engine.State().Busy }

// Manager owns the runtimes of one host.
type Manager struct {
	opts     Options
	sessions *session.Manager
	// worktrees verifies the sessions' worktree bindings (and caches
	// what git says of them); the front ends share it.
	worktrees *worktree.Service
	seed      maphash.Seed // for spec fingerprints

	mu        sync.Mutex
	runtimes  map[string]*Runtime
	resolvers map[string]*instructions.Resolver
	watcher   *fsnotify.Watcher
	watched   map[string]int
	last      map[string]events.Event // last launch/reuse/retire per session
	queued    []events.Event          // noted under mu, sent by unlock
	closing   []engine.Engine         // retired under mu, closed by unlock
	closed    bool
	running   sync.WaitGroup // prompts and compactions in flight

	emitMu sync.Mutex
	timing *os.File
	unsub  func()
	// allowed holds "allow for this session" answers (session id + tool),
	// for the manager's life, whichever program gave them.
	allowed map[string]bool
}

// New returns a Manager. It starts a file watcher; Close stops it.
func New(opts Options) (*Manager, error) {
	if opts.Env == nil {
		opts.Env = func(string) string { return "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.OnEvent == nil {
		opts.OnEvent = func(events.Event) {}
	}
	if opts.Provider.Commands == nil {
		// A key's !command runs once for the manager's life, as pi runs
		// it once per process.
		opts.Provider.Commands = provider.NewCommandCache()
	}
	m := &Manager{opts: opts, sessions: session.NewManager(opts.Host.Store, session.Config{AgentDir: opts.Host.Places.AgentDir,
		SessionDir: opts.Env("PI_CODING_AGENT_SESSION_DIR")}), seed: maphash.MakeSeed(), runtimes: map[string]*Runtime{},
		resolvers: map[string]*instructions.Resolver{}, watched: map[string]int{}, last: map[string]events.Event{},
		allowed: map[string]bool{}}
	m.worktrees = worktree.NewService(opts.Host.Store, opts.Host.Places.DataDir, worktree.Options{Env: opts.Env})
	if w, err := fsnotify.NewWatcher(); err == nil {
		m.watcher = w
		go m.watch(w)
	}
	m.unsub = opts.Host.Memory.Subscribe(func(root string) {
		m.refreshWhere(func(rt *Runtime) bool { return rt.Spec.ProjectRoot == root }, ReasonMemoryChanged)
	})
	return m, nil
}

// Sessions returns the session manager the runtimes use.
func (m *Manager) Sessions() *session.Manager { return m.sessions }

// Worktrees returns the worktree service the runtimes verify bindings
// with, for the front ends to list, merge and discard through.
func (m *Manager) Worktrees() *worktree.Service { return m.worktrees }

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
	m.unlock()
	// Let aborted turns store what arrived before the caller closes the
	// store under them.
	done := make(chan struct{})
	go func() { m.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	m.unsub()
	if w != nil {
		w.Close()
	}
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	if m.timing != nil {
		return m.timing.Close()
	}
	return nil
}

// emit serialises events from prompts, the watcher and timers, and
// publishes them to the host's broker, which never blocks on a program.
func (m *Manager) emit(e events.Event) {
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	if end, ok := e.(events.ToolEnded); ok && end.Preflight != nil {
		m.logTiming(end)
	}
	m.opts.OnEvent(e)
	m.opts.Host.Events.Publish(e)
}

// emitter is the publisher a runtime's engine is given: its events go
// through emit.
type emitter struct{ m *Manager }

func (e emitter) Publish(ev events.Event) { e.m.emit(ev) }

// Events is the broker programs subscribe to (the host's).
func (m *Manager) Events() *events.Broker { return m.opts.Host.Events }

// approve asks about a session's tool call: every program showing the
// session sees the question, the first answer counts (events.Broker.Ask).
// With no program showing it, Options.Approve decides (headless runs).
// A call the project's "always" rules cover runs without asking, headless
// too (ADR 0028); "allow for this session" is remembered here, per tool,
// for every program. Neither covers a call that asks a reason of its own
// (a write under .git/, or to the rules' copy), which asks every time.
func (m *Manager) approve(sessionID, root, projectRoot string) agent.Approver {
	rules := approvals.New(m.opts.Host.Store)
	return func(ctx context.Context, req agent.Approval) (bool, error) {
		key := sessionID + "\x00" + req.Tool
		if req.Reason == "" {
			if covered(ctx, rules, root, projectRoot, req) {
				return true, nil
			}
			m.mu.Lock()
			ok := m.allowed[key]
			m.mu.Unlock()
			if ok {
				return true, nil
			}
		}
		ans, err := m.opts.Host.Events.Ask(ctx, sessionID, root, projectRoot, req)
		switch {
		case errors.Is(err, events.ErrUnattended):
			if m.opts.Approve == nil {
				return false, nil
			}
			return m.opts.Approve(ctx, req)
		case err != nil:
			return false, err
		case !ans.Allow && ans.Reason != "":
			return false, &agent.DeniedError{Reason: ans.Reason}
		}
		if ans.Allow && ans.ForSession && req.Reason == "" {
			m.mu.Lock()
			m.allowed[key] = true
			m.mu.Unlock()
		}
		return ans.Allow, nil
	}
}

// covered reports whether one of the project's rules allows the call. A
// file is matched by its canonical path inside the root the session works
// in (a worktree's, in a worktree session), so a link or a ../ cannot make
// a rule for docs/** cover another file; the rules are the project's.
// Rules that cannot be read allow nothing.
func covered(ctx context.Context, rules *approvals.Store, root, projectRoot string, req agent.Approval) bool {
	subject := req.Command
	switch req.Tool {
	case approvals.ToolBash:
	case approvals.ToolWrite, approvals.ToolEdit:
		canon, err := agent.Confine(root, req.Path)
		if err != nil {
			return false
		}
		rel, err := filepath.Rel(root, canon)
		if err != nil || rel == "." {
			return false
		}
		subject = filepath.ToSlash(rel)
	default:
		return false
	}
	list, err := rules.Rules(ctx, projectRoot)
	if err != nil {
		return false
	}
	_, ok := approvals.Covers(list, req.Tool, subject)
	return ok
}

// logTiming appends one line per file tool call to timing.log; failures
// to log never fail the tool.
func (m *Manager) logTiming(e events.ToolEnded) {
	if m.timing == nil {
		f, err := os.OpenFile(filepath.Join(m.opts.Host.Places.DataDir, TimingFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
		m.timing = f
	}
	line, _ := json.Marshal(struct {
		Time        string  `json:"time"`
		SessionID   string  `json:"sessionId"`
		ToolCallID  string  `json:"toolCallId"`
		Tool        string  `json:"tool"`
		PreflightMs float64 `json:"preflightMs"`
		Cache       string  `json:"cache"`
		Fallback    string  `json:"fallback"`
		ToolMs      float64 `json:"toolMs"`
		Denied      bool    `json:"denied,omitempty"`
	}{m.opts.Now().UTC().Format(time.RFC3339Nano), e.SessionID, e.ToolCallID, e.ToolName, e.Preflight.Ms, e.Preflight.Cache,
		e.Preflight.Fallback, e.ToolMs, e.Denied})
	m.timing.Write(append(line, '\n'))
}

// resolver returns a cached resolver for the model and the current
// agent-guidance.json (a changed file gives a new resolver).
func (m *Manager) resolver(model instructions.Model) *instructions.Resolver {
	agentDir := m.opts.Host.Places.AgentDir
	key := model.Provider + "/" + model.ID
	if fi, err := os.Stat(filepath.Join(agentDir, instructions.GuidanceFile)); err == nil {
		key += fmt.Sprintf("|%d|%d", fi.Size(), fi.ModTime().UnixNano())
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.resolvers[key]; ok {
		return r
	}
	if len(m.resolvers) > 16 {
		clear(m.resolvers)
	}
	r := instructions.New(instructions.Options{AgentDir: agentDir, Home: m.opts.Host.Places.Home, Model: model})
	m.resolvers[key] = r
	return r
}

// built is a spec with what launching needs.
type built struct {
	spec   Spec
	client provider.Client
	model  provider.Model
	res    *instructions.Resolver
	base   []string // the root chain's labels
	ttl    time.Duration
	// settings are pi's settings.json, skills and templates for the
	// project.
	settings resources
}

// build computes the launch spec of a session: its root, the project's
// trust, the model, the root chain and the project's memory. A session in
// a worktree of its own (ADR 0029) works in that folder: tools, bash and
// the instruction chain use it as the root, while memory and trust stay
// the project's, keyed by the project root.
func (m *Manager) build(ctx context.Context, sess *session.Session, modelSpec string) (built, error) {
	h := m.opts.Host
	projectID, sessionID := sess.ProjectID(), sess.ID()
	p, err := h.Projects.Binding(ctx, projectID)
	if err != nil {
		return built{}, err
	}
	if p.Missing {
		return built{}, fmt.Errorf("the project folder %s is gone; restore it or remove the project", p.Root)
	}
	root := p.Root
	// A binding pi-tui cannot verify (a planted or edited session file)
	// refuses here: no tools, no prompt run in a folder it names.
	w, bound, err := m.worktrees.Lookup(ctx, sess)
	if err != nil {
		return built{}, err
	}
	if bound {
		if fi, err := os.Stat(w.Root); err != nil || !fi.IsDir() {
			return built{}, &worktree.MissingError{W: w}
		}
		root = w.Root
	}
	prefs, err := h.Preferences(ctx)
	if err != nil {
		return built{}, err
	}
	// pi's settings.json, the project's own only when it is trusted.
	res := m.resources(root, p.Trusted)
	popts := res.providerOptions(m.opts.Provider)
	resolve := m.opts.Resolve
	if resolve == nil {
		resolve = func(spec string) (provider.Client, provider.Model, error) {
			return provider.Resolve(h.Places.AgentDir, m.opts.Env, spec, popts)
		}
	}
	client, model, err := resolve(modelSpec)
	if err != nil {
		return built{}, err
	}
	resv := m.resolver(instructions.Model{Provider: model.Provider, ID: model.ID})
	chain, err := resv.ResolveRoot(ctx, root)
	if err != nil {
		return built{}, err
	}
	mem, err := h.Memory.Load(ctx, p.Root)
	var unreadable *memory.UnreadableError
	if err != nil && !errors.As(err, &unreadable) {
		return built{}, err
	}
	tools := m.opts.Tools
	if tools == nil {
		tools = agent.DefaultTools
	}
	if tools, err = m.withRemember(ctx, p, tools); err != nil {
		return built{}, err
	}
	spec := Spec{SessionID: sessionID, Root: root, ProjectRoot: p.Root, Model: model.Provider + "/" + model.ID, Thinking: model.Thinking, KeyTag: model.KeyTag, Tools: tools,
		Permission: prefs.PermissionMode, Trusted: p.Trusted, Sections: Sections{Base: baseFor(tools), Instructions: chain.Text,
			Memory: memorySection(mem.Content), Skills: res.skills.PromptSection(tools), Environment: environment(root, m.opts.Now())},
		Settings: res.String()}
	ttl := m.opts.IdleTTL
	if ttl <= 0 {
		ttl = prefs.IdleTTL
	}
	return built{spec: spec, client: client, model: model, res: resv, base: labels(chain), ttl: ttl, settings: res}, nil
}

// Prepare re-registers a session's binding before a prompt or compaction
// and returns the runtime to use: the idle one when its fingerprint is
// unchanged, else a new one (the old retired with the reason). A busy
// runtime is never swapped: ErrBusy.
func (m *Manager) Prepare(ctx context.Context, sessionID, modelSpec string) (*Runtime, error) {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	var sess *session.Session
	if rt != nil {
		if rt.busy() {
			return nil, engine.ErrBusy
		}
		sess = rt.Session
	} else {
		s, err := m.sessions.Open(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		sess = s
	}
	if modelSpec == "" {
		// A run that names no model (prompt --session, rpc, a reopened
		// view) keeps the model and thinking level the session chose last.
		modelSpec = provider.WithThinking(sess.Chosen())
	}
	b, err := m.build(ctx, sess, modelSpec)
	if err != nil {
		return nil, err
	}
	fp := b.spec.Fingerprint(m.seed)
	m.mu.Lock()
	defer m.unlock()
	if m.closed {
		return nil, errors.New("the runtime manager is closed")
	}
	reason := ReasonNew
	if last, ok := m.last[sessionID].(events.RuntimeRetired); ok && last.Reason != ReasonShutdown {
		// Retired proactively (instructions or memory changed while idle):
		// the launch says why, as a swap at this prompt would.
		reason = last.Reason
	}
	if cur := m.runtimes[sessionID]; cur != nil {
		if cur.busy() {
			return nil, engine.ErrBusy
		}
		if cur.fp == fp {
			cur.ttl = b.ttl
			cur.reserved = true // a prompt is about to start: no retiring it
			m.touchLocked(cur)
			m.note(events.RuntimeReused{SessionID: sessionID, Reason: "unchanged", Model: cur.Spec.Model})
			return cur, nil
		}
		reason = why(cur.Spec, b.spec)
		m.retireLocked(cur, reason)
		// Launch with the history from the store, not the old process memory.
		s, err := m.sessions.Open(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		sess = s
	}
	rt = m.launchLocked(b, sess, fp)
	rt.reserved = true
	info := rt.Engine.Info()
	m.note(events.RuntimeLaunched{SessionID: sessionID, Reason: reason, Model: b.spec.Model, Engine: info.Name, EngineVersion: info.Version})
	return rt, nil
}

// note records a runtime event. Called with m.mu held, it only queues
// the event: unlock sends it, after m.mu is released, so a slow event
// reader (a blocked stdout) never holds the manager.
func (m *Manager) note(e events.Event) {
	m.last[e.Session()] = e
	m.queued = append(m.queued, e)
}

// unlock releases m.mu and then closes the engines retired and sends
// the events noted under it: an engine that takes its time to end (a
// process) never holds the manager.
func (m *Manager) unlock() {
	evs, closing := m.queued, m.closing
	m.queued, m.closing = nil, nil
	m.mu.Unlock()
	for _, e := range closing {
		e.Close()
	}
	for _, e := range evs {
		m.emit(e)
	}
}

func (m *Manager) launchLocked(b built, sess *session.Session, fp string) *Runtime {
	rt := &Runtime{Spec: b.spec, Session: sess, fp: fp, ttl: b.ttl}
	var pf agent.Preflighter = newProxy(b.spec.Root, b.spec.Trusted, b.res, m.opts.Host.Places.Home, m.opts.Host.Places.AgentDir,
		instructions.Model{Provider: b.model.Provider, ID: b.model.ID})
	if m.opts.WrapPreflight != nil {
		pf = m.opts.WrapPreflight(pf)
	}
	var mw agent.MemoryWriter
	if slices.Contains(b.spec.Tools, agent.ToolRemember) {
		mw = &memoryWriter{m: m, rt: rt, projectID: sess.ProjectID()}
	}
	rt.Engine = agent.NewEngine(agent.Config{Session: sess, Root: b.spec.Root, AgentDir: m.opts.Host.Places.AgentDir, Client: b.client, Model: b.model,
		System: b.spec.Sections.System(), Tools: b.spec.Tools, Permission: b.spec.Permission, Preflight: pf,
		PreflightTimeout: m.opts.PreflightTimeout, BaseChain: b.base, Approve: m.approve(sess.ID(), b.spec.Root, b.spec.ProjectRoot), Events: emitter{m},
		Compaction: &b.settings.compaction, Shell: b.settings.shell, Memory: mw})
	m.runtimes[sess.ID()] = rt
	m.watchLocked(b.spec.Root, 1)
	m.watchLocked(m.opts.Host.Places.AgentDir, 1)
	m.touchLocked(rt)
	return rt
}

func (m *Manager) retireLocked(rt *Runtime, reason string) {
	id := rt.Session.ID()
	if m.runtimes[id] != rt {
		return
	}
	delete(m.runtimes, id)
	if rt.idle != nil {
		rt.idle.Stop()
	}
	m.watchLocked(rt.Spec.Root, -1)
	m.watchLocked(m.opts.Host.Places.AgentDir, -1)
	m.closing = append(m.closing, rt.Engine)
	m.note(events.RuntimeRetired{SessionID: id, Reason: reason, Model: rt.Spec.Model})
}

// touchLocked marks a runtime used now and restarts its idle timer.
func (m *Manager) touchLocked(rt *Runtime) {
	rt.lastUsed = m.opts.Now()
	ttl := rt.ttl
	if ttl <= 0 {
		ttl = 15 * time.Minute
	}
	if rt.idle != nil {
		rt.idle.Stop()
	}
	rt.idle = time.AfterFunc(ttl, func() { m.expire(rt, ttl) })
}

func (m *Manager) expire(rt *Runtime, ttl time.Duration) {
	m.mu.Lock()
	defer m.unlock()
	if rt.busy() || rt.reserved {
		rt.idle = time.AfterFunc(ttl, func() { m.expire(rt, ttl) })
		return
	}
	m.retireLocked(rt, ReasonIdleTimeout)
}

// Retire retires a session's runtime if it is idle (model switch, session
// switch, shutdown). It reports whether one was retired.
func (m *Manager) Retire(sessionID, reason string) bool {
	m.mu.Lock()
	defer m.unlock()
	rt := m.runtimes[sessionID]
	if rt == nil || rt.busy() || rt.reserved {
		return false
	}
	m.retireLocked(rt, reason)
	return true
}

// Prompt prepares the session's runtime and runs text on it.
func (m *Manager) Prompt(ctx context.Context, sessionID, modelSpec, text string) (engine.Result, error) {
	m.running.Add(1)
	defer m.running.Done()
	rt, err := m.Prepare(ctx, sessionID, modelSpec)
	if err != nil {
		// The agent never started: the prompt still ends, once, with the
		// reason, so clients waiting for agent_end are not left hanging.
		m.emit(events.AgentEnded{SessionID: sessionID, Error: err.Error(), StopReason: provider.StopError})
		return engine.Result{}, err
	}
	defer m.touch(rt)
	// The session's count and date moved (or it was written for the
	// first time): lists showing it reload.
	defer m.opts.Host.Events.Publish(events.ProjectsChanged{ProjectID: rt.Session.ProjectID()})
	return rt.Engine.Prompt(ctx, text)
}

// Compact prepares the runtime and compacts its session.
func (m *Manager) Compact(ctx context.Context, sessionID, modelSpec, extra string) (string, error) {
	m.running.Add(1)
	defer m.running.Done()
	rt, err := m.Prepare(ctx, sessionID, modelSpec)
	if err != nil {
		return "", err
	}
	defer m.touch(rt)
	defer m.opts.Host.Events.Publish(events.ProjectsChanged{ProjectID: rt.Session.ProjectID()})
	return rt.Engine.Compact(ctx, extra)
}

// touch ends a prompt's reservation and restarts the idle timer.
func (m *Manager) touch(rt *Runtime) {
	m.mu.Lock()
	defer m.unlock()
	rt.reserved = false
	if m.runtimes[rt.Session.ID()] == rt {
		m.touchLocked(rt)
	}
}

// Steer sends text to the session's running turn: it reaches the model
// before its next call. FollowUp sends text for when the turn would end.
// With no turn running they return engine.ErrIdle.
func (m *Manager) Steer(sessionID, text string) error {
	return m.toRunning(sessionID, func(e engine.Engine) error { return e.Steer(text) })
}

// FollowUp: see Steer.
func (m *Manager) FollowUp(sessionID, text string) error {
	return m.toRunning(sessionID, func(e engine.Engine) error { return e.FollowUp(text) })
}

func (m *Manager) toRunning(sessionID string, send func(engine.Engine) error) error {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt == nil {
		return engine.ErrIdle
	}
	return send(rt.Engine)
}

// Abort stops a session's running prompt.
func (m *Manager) Abort(sessionID string) bool {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt == nil || !rt.busy() {
		return false
	}
	rt.Engine.Abort()
	return true
}

// Session returns the live session object of a runtime, or opens it.
func (m *Manager) Session(ctx context.Context, id string) (*session.Session, error) {
	m.mu.Lock()
	rt := m.runtimes[id]
	m.mu.Unlock()
	if rt != nil {
		return rt.Session, nil
	}
	return m.sessions.Open(ctx, id)
}

// Branch moves a session's leaf to an earlier entry. A busy session
// cannot branch.
func (m *Manager) Branch(ctx context.Context, sessionID, entryID string) error {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt != nil {
		return rt.Engine.Branch(ctx, entryID)
	}
	s, err := m.Session(ctx, sessionID)
	if err != nil {
		return err
	}
	return s.Branch(ctx, entryID)
}

// State is a session's runtime as get_state reports it.
type State struct {
	SessionID string
	Runtime   string // none, idle, working
	Model     string
	Thinking  string
	// Last is the latest launch, reuse or retirement (RuntimeLaunched,
	// RuntimeReused, RuntimeRetired); nil before the first.
	Last  events.Event
	Usage *provider.Usage
	Leaf  string
	Title string
}

// State reports a session's runtime state.
func (m *Manager) State(sessionID string) State {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := State{SessionID: sessionID, Runtime: "none"}
	st.Last = m.last[sessionID]
	if rt := m.runtimes[sessionID]; rt != nil {
		st.Runtime, st.Model, st.Thinking = "idle", rt.Spec.Model, rt.Spec.Thinking
		if rt.busy() {
			st.Runtime = "working"
		}
		total := rt.Engine.State().Usage
		st.Usage = &total
		st.Leaf, st.Title = rt.Session.Leaf(), rt.Session.Title()
	}
	return st
}

// refreshWhere rebuilds the spec of each idle runtime that match selects
// and retires it when the fingerprint moved (proactive retirement).
func (m *Manager) refreshWhere(match func(*Runtime) bool, hint string) {
	m.mu.Lock()
	var list []*Runtime
	for _, rt := range m.runtimes {
		if match(rt) && !rt.busy() && !rt.reserved {
			list = append(list, rt)
		}
	}
	m.mu.Unlock()
	for _, rt := range list {
		model := rt.Spec.Model
		b, err := m.build(context.Background(), rt.Session, model)
		m.mu.Lock()
		if m.runtimes[rt.Session.ID()] == rt && !rt.busy() && !rt.reserved {
			switch {
			case err != nil:
				m.retireLocked(rt, hint)
			case b.spec.Fingerprint(m.seed) != rt.fp:
				m.retireLocked(rt, why(rt.Spec, b.spec))
			}
		}
		m.unlock()
	}
}

// watchLocked counts users of a directory watch.
func (m *Manager) watchLocked(dir string, delta int) {
	if m.watcher == nil || dir == "" {
		return
	}
	n := m.watched[dir] + delta
	switch {
	case n <= 0:
		delete(m.watched, dir)
		m.watcher.Remove(dir)
	case n == delta: // first user
		m.watched[dir] = n
		m.watcher.Add(dir)
	default:
		m.watched[dir] = n
	}
}

// watch retires idle runtimes when an instruction candidate in a root or
// in the agent dir changes.
func (m *Manager) watch(w *fsnotify.Watcher) {
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if !relevant(filepath.Base(ev.Name)) {
				continue
			}
			dir := filepath.Dir(ev.Name)
			agentDir := m.opts.Host.Places.AgentDir
			m.refreshWhere(func(rt *Runtime) bool { return dir == agentDir || rt.Spec.Root == dir }, ReasonInstructionsChanged)
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
		}
	}
}

// relevant names the files whose change can change a root chain.
func relevant(name string) bool {
	switch name {
	case "AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD", ".claude", "CODEX.md", "GEMINI.md",
		instructions.GuidanceFile, "settings.json", "models.json", "auth.json", projects.TrustFile:
		return true
	}
	return filepath.Ext(name) == ".md"
}

// Inspection is what the context inspector shows: the system prompt's
// sections as a runtime for the session would receive them, and the
// instruction sources with their sizes.
type Inspection struct {
	Model string
	// Root is the root the chain was resolved from: the session's
	// worktree, or the project root; ProjectRoot is the project's.
	Root, ProjectRoot string
	Sections          Sections
	System            string
	Sources           []SourceSize
	// Problems are settings files that could not be used and skill or
	// template files that were skipped, one sentence each.
	Problems []string
}

// SourceSize is one instruction source of the root chain.
type SourceSize struct {
	Label     string
	Bytes     int
	Shown     int
	Truncated bool
}

// Inspect builds (without launching anything) the system prompt the
// session's runtime gets.
func (m *Manager) Inspect(ctx context.Context, sessionID, modelSpec string) (Inspection, error) {
	s, err := m.Session(ctx, sessionID)
	if err != nil {
		return Inspection{}, err
	}
	b, err := m.build(ctx, s, modelSpec)
	if err != nil {
		return Inspection{}, err
	}
	in := Inspection{Model: b.spec.Model, Root: b.spec.Root, ProjectRoot: b.spec.ProjectRoot, Sections: b.spec.Sections, System: b.spec.Sections.System(), Problems: b.settings.problems}
	if c, err := b.res.ResolveRoot(ctx, b.spec.Root); err == nil {
		for _, src := range c.Sources {
			in.Sources = append(in.Sources, SourceSize{Label: src.Label, Bytes: src.Bytes, Shown: src.ShownBytes, Truncated: src.Truncated})
		}
	}
	return in, nil
}

// ContextWindow returns the context window of the model a session would
// use, for the status bar's fill meter (0 when unknown).
func (m *Manager) ContextWindow(sessionID string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if rt := m.runtimes[sessionID]; rt != nil {
		return rt.Engine.ContextWindow()
	}
	return 0
}

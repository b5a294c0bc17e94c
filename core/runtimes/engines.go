package runtimes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/services"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Engines: which engine a runtime runs on, and starting it through its
// descriptor (engine.Descriptor.Start, ADR 0094) (docs/adr/0047-engines-in-the-runtime-manager.md).

// EnvEngine overrides the engine setting for a process (scripts, tests);
// Options.Engine (--engine) overrides it in turn.
const EnvEngine = "PI_TUI_ENGINE"

// choice is the engine a spec is built for.
type choice struct {
	desc  engine.Descriptor
	found engine.Found // the program a Process engine runs; zero otherwise
	// notice is said when the runtime launches: auto passed an engine
	// over that something named (PI_TUI_PI naming a pi that cannot run: a
	// typo, a removed install), which would otherwise go unnoticed.
	notice string
}

// chooseEngine resolves the engine setting: Options.Engine, else
// PI_TUI_ENGINE, else the stored preference, against the registry
// (Options.Engines). auto takes the first registered engine that can
// run (one whose program is found; the composition root registers the
// user's pi first), and only an engine of pi-tui's own models whenever
// the caller brought its own model client (Options.Resolve: a script's
// or a test's fake model, which an engine with its own models cannot
// reach). An engine chosen by name and not usable is an error saying why
// and what to do.
func (m *Manager) chooseEngine(ctx context.Context, pref string) (choice, error) {
	want, from := m.opts.Engine, "--engine"
	if want == "" {
		want, from = m.opts.Env(EnvEngine), EnvEngine
	}
	if want == "" {
		want, from = pref, "the engine setting"
	}
	reg := m.opts.Engines
	if want == "" || want == services.EngineAuto {
		var passed []string
		for _, d := range reg.All() {
			if m.opts.Resolve != nil && d.Caps.Models {
				continue
			}
			if d.Locate == nil {
				c := choice{desc: d}
				if len(passed) > 0 {
					c.notice = strings.Join(passed, "; ") + ": the " + d.Title + " engine runs this session"
				}
				return c, nil
			}
			f, err := d.Locate(ctx)
			if err == nil {
				return choice{desc: d, found: f}, nil
			}
			if d.Unfound != nil {
				if n := d.Unfound(err); n != "" {
					passed = append(passed, n)
				}
			}
		}
		return choice{}, fmt.Errorf("no engine can run (%s)", strings.Join(reg.Names(), ", "))
	}
	d, ok := reg.Get(want)
	if !ok {
		return choice{}, fmt.Errorf("%s: unknown engine %q (%s)", from, want, strings.Join(append([]string{services.EngineAuto}, reg.Names()...), ", "))
	}
	if d.Locate == nil {
		return choice{desc: d}, nil
	}
	f, err := d.Locate(ctx)
	if err != nil {
		err = fmt.Errorf("the %s engine is chosen (%s) but cannot run: %v", d.Title, from, err)
		if alt, ok := m.atHand(); ok {
			err = fmt.Errorf("%w; or choose the %s engine (--engine %s, %s=%s, or Settings)", err, alt.Title, alt.Name, EnvEngine, alt.Name)
		}
		return choice{}, err
	}
	return choice{desc: d, found: f}, nil
}

// atHand is the first engine that has no program to find, the one to
// suggest when a chosen one cannot run.
func (m *Manager) atHand() (engine.Descriptor, bool) {
	for _, d := range m.opts.Engines.All() {
		if d.Locate == nil {
			return d, true
		}
	}
	return engine.Descriptor{}, false
}

// EngineOf describes the engine a session runs on: its runtime's, or the
// one its next launch would use. The programs ask its Capabilities (its
// own commands, models, thinking levels), never its name.
func (m *Manager) EngineOf(ctx context.Context, sessionID string) (engine.Descriptor, error) {
	m.mu.Lock()
	rt := m.runtimes[sessionID]
	m.mu.Unlock()
	if rt != nil && !rt.dead() {
		if d, ok := m.opts.Engines.Get(rt.Spec.Engine); ok {
			return d, nil
		}
	}
	prefs, err := m.opts.Host.Preferences(ctx)
	if err != nil {
		return engine.Descriptor{}, err
	}
	c, err := m.chooseEngine(ctx, prefs.Engine)
	return c.desc, err
}

// Engines is the registry of engines the manager launches from (the
// composition root's).
func (m *Manager) Engines() *engine.Registry { return m.opts.Engines }

// piModel is the model a pi runtime is launched with when pi-tui cannot
// build a client for it itself (a subscription login only pi holds, a
// provider only pi knows): the spec's, else settings.json's default,
// else pi's own default.
func piModel(agentDir, spec string) (provider.Model, error) {
	name, level := provider.SplitThinking(spec)
	if name == "" {
		d, err := pisettings.ReadDefaults(agentDir)
		if err != nil {
			return provider.Model{}, err
		}
		return provider.Model{Provider: d.Provider, ID: d.Model, Thinking: level}, nil
	}
	prov, id, ok := strings.Cut(name, "/")
	if !ok {
		return provider.Model{ID: name, Thinking: level}, nil
	}
	return provider.Model{Provider: prov, ID: id, Thinking: level}, nil
}

// process is what the manager asks of an engine that runs as a program
// of its own (Capabilities.Process) beyond the Engine contract: whether
// the program still runs, one of its own protocol's commands
// (Capabilities.Calls), and what it made of the project's own resources
// at its start. pi's (core/pirun) is the one there is.
type process interface {
	engine.Engine
	Dead() bool
	Call(ctx context.Context, command string, params any) (json.RawMessage, error)
	ProjectResources() *events.ProjectResources
}

// leftEmpty removes the session file pi-tui wrote for a pi that has ended
// without writing to it (a launch that failed, a prompt pi refused, a
// prewarmed pi never prompted), unless another runtime of the session is
// launching or running: pi-tui created the session, and a session is one
// once its first prompt is in it.
func (m *Manager) leftEmpty(sess *sessions.Session) {
	m.mu.Lock()
	taken := m.launching[sess.ID()] != nil || m.runtimes[sess.ID()] != nil
	m.mu.Unlock()
	if !taken {
		_, _ = sess.Unpersist(context.Background())
	}
}

// dead reports a pi runtime whose pi has exited.
func (rt *Runtime) dead() bool { return rt.pi != nil && rt.pi.Dead() }

// preflighter is the host side of a runtime's preflight, bound to its
// root (both engines).
func (m *Manager) preflighter(b built) toolpolicy.Preflighter {
	var pf toolpolicy.Preflighter = newProxy(b.spec.Root, b.spec.Trusted, b.spec.Folders, b.spec.confined(), b.res, m.opts.Host.Places.Home, m.opts.Host.Places.AgentDir,
		instructions.Model{Provider: b.model.Provider, ID: b.model.ID})
	if m.opts.WrapPreflight != nil {
		pf = m.opts.WrapPreflight(pf)
	}
	return pf
}

// launchOf is what rt's engine is started with (engine.Launch): the
// spec's root, folders, model, prompt and tools, and the host's hooks
// bound to rt (the preflight, approvals, the memory writer where remember
// is allowed, checkpoints, plan mode, trust, extension dialogs).
func (m *Manager) launchOf(b built, sess *sessions.Session, rt *Runtime) engine.Launch {
	h := m.opts.Host
	rec, cp := m.checkpointer(b, sess)
	rt.recorder = rec
	var mw toolpolicy.MemoryWriter
	if slices.Contains(b.spec.Tools, toolpolicy.ToolRemember) {
		mw = &memoryWriter{m: m, rt: rt, projectID: sess.ProjectID()}
	}
	sid, projectID := sess.ID(), sess.ProjectID()
	return engine.Launch{Session: sess, Root: b.spec.Root, Folders: b.spec.confined(), Reached: m.noteFolderUse(projectID, sid),
		AgentDir: h.Places.AgentDir, Home: h.Places.Home, DataDir: h.Places.DataDir,
		Client: b.client, Model: b.model, System: b.spec.Sections.System(),
		Sections: func() string {
			m.mu.Lock()
			sec := rt.Spec.Sections // adopt moves it when the agent remembers
			m.mu.Unlock()
			return sec.PiSystem()
		},
		Tools: b.spec.Tools, Permission: b.spec.Permission,
		Preflight: m.preflighter(b), PreflightTimeout: m.opts.PreflightTimeout, BaseChain: b.base,
		Approve: m.approve(sid, b.spec), Memory: mw, Checkpoints: cp, Plan: m.planOf(sid), Events: emitter{m},
		Compaction: b.settings.compaction, Shell: b.settings.shell,
		Found: b.found, Env: m.opts.PiEnv, Trusted: m.piTrust(projectID, b.spec.ProjectRoot),
		Sent: func(s engine.Sent) { m.sent.Store(sid, s) }, Ask: m.extensionUI(sid)}
}

// launchProcess starts a Process engine (the user's pi) for a session,
// bound to this runtime. It runs without the manager's lock: node takes
// its time to start.
func (m *Manager) launchProcess(ctx context.Context, b built, sess *sessions.Session, fp string) (*Runtime, error) {
	// pi works in the folder the file's header names, not in the one it
	// is started in: the header must name the session's root (its
	// worktree, or the project again after a discard) or pi's tools, bash
	// and system prompt work in another checkout than the host confines
	// and records. pi continues the file pi-tui created, with its id,
	// instead of writing a session of its own there.
	if err := sess.SetCwd(ctx, b.spec.Root); err != nil {
		return nil, err
	}
	if err := sess.Persist(ctx); err != nil {
		return nil, err
	}
	rt := &Runtime{Spec: b.spec, Session: sess, fp: fp, ttl: b.ttl, notice: b.notice}
	l := m.launchOf(b, sess, rt)
	l.Closed = func() { m.leftEmpty(sess) }
	eng, err := b.engine.Start(ctx, l)
	if err != nil {
		_, _ = sess.Unpersist(context.WithoutCancel(ctx)) // the program is gone: no empty session is left
		return nil, err
	}
	p, ok := eng.(process)
	if !ok {
		eng.Close()
		return nil, fmt.Errorf("the %s engine runs a program of its own but cannot say whether it runs", b.engine.Title)
	}
	rt.Engine, rt.pi = eng, p
	return rt, nil
}

// extensionUI opens an extension's dialog where the session is shown
// (the broker's AskDialog, answered like an approval); with nothing
// showing it (headless, rpc) the dialog is cancelled and a notice says so.
func (m *Manager) extensionUI(sessionID string) func(context.Context, events.Dialog) events.DialogReply {
	return func(ctx context.Context, req events.Dialog) events.DialogReply {
		reply, err := m.opts.Host.Events.AskDialog(ctx, sessionID, req)
		if errors.Is(err, events.ErrUnattended) {
			what := strings.TrimSpace(req.Title)
			if what == "" {
				what = req.Message
			}
			m.emit(events.Notice{SessionID: sessionID, Level: "warning", Source: "pi-tui",
				Text: fmt.Sprintf("an extension asked (%s: %s); no UI to answer it: cancelled", req.Method, oneLine(what))})
			return events.DialogReply{Cancelled: true}
		}
		if err != nil || reply.Cancelled {
			return events.DialogReply{Cancelled: true}
		}
		return reply
	}
}

// oneLine keeps a notice to one line of at most 120 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// makeRoomLocked keeps the live pi processes within the maxPiRuntimes
// cap before one more is launched: the idle ones go first, the one unused
// longest first, each retired with ReasonCap. When every one is working,
// the launch is refused (ADR 0047): a bound that gives way under load
// would not bound the memory.
func (m *Manager) makeRoomLocked(limit int) error {
	for {
		live := len(m.launching)
		var oldest *Runtime
		for _, rt := range m.runtimes {
			if rt.pi == nil {
				continue
			}
			live++
			if !rt.busy() && !rt.reserved && (oldest == nil || rt.lastUsed.Before(oldest.lastUsed)) {
				oldest = rt
			}
		}
		if live < limit {
			return nil
		}
		if oldest == nil {
			return fmt.Errorf("%d pi runtimes are running, as many as the maxPiRuntimes setting allows, and none is idle; wait for one to finish, or raise the setting", live)
		}
		m.retireLocked(oldest, ReasonCap)
	}
}

// Prewarm launches a session's runtime before its first prompt (when a
// session view opens), so that prompt does not wait for pi to start: the
// launch says ReasonNew and the first prompt's reuse says "prewarmed". A
// runtime already there (or busy) is left alone. A session deleted
// meanwhile, or a spec that changes before the prompt, is handled as for
// any runtime: the delete waits for the launch and retires it, the prompt
// retires a stale one with its reason.
func (m *Manager) Prewarm(ctx context.Context, sessionID string) error {
	m.running.Add(1)
	defer m.running.Done()
	_, err := m.prepare(ctx, sessionID, "", false)
	if errors.Is(err, engine.ErrBusy) {
		return nil
	}
	return err
}

// Call passes one of pi's own RPC commands (get_available_models,
// get_commands, get_session_stats, export_html, …) to the session's pi and
// returns its data, launching the runtime first when there is none. The
// built-in engine has none of them.
func (m *Manager) Call(ctx context.Context, sessionID, command string, params json.RawMessage) (json.RawMessage, error) {
	m.running.Add(1)
	defer m.running.Done()
	rt, err := m.liveRuntime(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if rt.pi == nil {
		return nil, fmt.Errorf("the builtin engine has no %s", command)
	}
	var p any
	if len(params) > 0 {
		p = params
	}
	return rt.pi.Call(ctx, command, p)
}

// awaitLaunch waits while a pi is being launched for the session.
func (m *Manager) awaitLaunch(ctx context.Context, sessionID string) error {
	for {
		m.mu.Lock()
		ch := m.launching[sessionID]
		m.mu.Unlock()
		if ch == nil {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

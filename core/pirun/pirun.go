// Package pirun is a pi runtime: the user's pi (core/piengine) with
// pi-tui's bridge (core/bridge) around it, started from what the runtime
// manager hands any engine (engine.Launch). It is the one place that
// names both: the manager starts pi through its registry's descriptor
// (engine.Descriptor.Start, which the composition root sets to
// Runner.Start) and asks the running engine only what small interfaces
// of its own name (docs/adr/0094-engines-constructed-by-their-descriptor.md).
package pirun

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/pi-tui/pi-tui/core/bridge"
	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/piengine"
)

// Runner starts pi runtimes. It installs the bridge extension in the data
// dir once (again after a failure); one Runner serves a registry, so a
// process writes the extension once however many runtimes it launches.
type Runner struct {
	mu   sync.Mutex
	path string
}

// extension installs the bridge extension, once.
func (r *Runner) extension(dataDir string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.path != "" {
		return r.path, nil
	}
	p, err := bridge.Install(dataDir)
	if err != nil {
		return "", err
	}
	r.path = p
	return p, nil
}

// Start launches the user's pi (l.Found) for a session, with the bridge
// bound to this runtime: its root, its session file, pi-tui's sections
// when pi asks, the preflight, approvals, the memory writer where
// remember is allowed, and trust. pi's first report of its version
// settles l.Found's (engine.Found.Settle): a kept version the program does
// not confirm ends it before it was sent anything, with an error wrapping
// engine.ErrVersionChanged. The engine returned answers Dead, Call (pi's
// own RPC commands), PID and ProjectResources besides the Engine
// contract.
func (r *Runner) Start(ctx context.Context, l engine.Launch) (engine.Engine, error) {
	ext, err := r.extension(l.DataDir)
	if err != nil {
		return nil, err
	}
	sid := l.Session.ID()
	var sent func(bridge.Sent)
	if l.Sent != nil {
		sent = func(s bridge.Sent) { l.Sent(neutral(s)) }
	}
	dec := bridge.NewDecisions(bridge.Deps{Root: l.Root, Folders: l.Folders, Reached: l.Reached, SessionFile: l.Session.File(),
		System: func(context.Context) (string, error) {
			if l.Sections == nil {
				return "", nil
			}
			return l.Sections(), nil
		},
		Preflight: l.Preflight, PreflightTimeout: l.PreflightTimeout, BaseChain: l.BaseChain,
		Permission: l.Permission, Approve: l.Approve, Memory: l.Memory,
		Trusted: l.Trusted, Home: l.Home, Checkpoints: l.Checkpoints, Plan: l.Plan, Sent: sent})
	srv, err := bridge.Listen(filepath.Join(l.DataDir, "run"), dec)
	if err != nil {
		dec.Close()
		return nil, err
	}
	sctx, stop := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(sctx); err != nil {
			l.Events.Publish(events.Notice{SessionID: sid, Level: "error", Source: "pi-tui", Text: "the pi bridge's channel broke: " + err.Error() + "; pi's tool calls are blocked until the runtime is relaunched"})
		}
	}()
	eng, err := piengine.Launch(ctx, piengine.Config{Publisher: publisher{next: l.Events, dec: dec}, SessionID: sid, Pi: piengine.FoundPi(l.Found), SessionFile: l.Session.File(), Root: l.Root,
		AgentDir: l.AgentDir, Provider: l.Model.Provider, Model: l.Model.ID, Thinking: l.Model.Thinking, Bridge: ext,
		ExtraEnv: append(srv.Env(), l.Env...), ToolInfo: dec.ToolInfo, ToolParams: dec.ToolParams, ExtensionUI: dialogs(l.Ask)})
	if err != nil {
		stop()
		srv.Close()
		<-served
		dec.Close()
		return nil, err
	}
	run := &run{Engine: eng, stop: stop, srv: srv, served: served, dec: dec}
	if err := settle(l.Found, srv.PiVersion()); err != nil {
		// A kept version this pi does not confirm: it is ended before it
		// was sent anything, and the caller asks pi and launches again.
		run.Close()
		return nil, err
	}
	run.closed = l.Closed
	return run, nil
}

// settle confirms the version a launched program reported (Found.Settle).
func settle(f engine.Found, reported string) error {
	if f.Settle == nil {
		return nil
	}
	return f.Settle(reported)
}

// run is a pi runtime's engine with its bridge: closing it ends pi first
// (stdin, SIGTERM, SIGKILL), then the channel and the host's decisions.
type run struct {
	*piengine.Engine
	stop   context.CancelFunc
	srv    *bridge.Server
	served <-chan struct{}
	dec    *bridge.Decisions
	// closed, when set, runs once pi and its bridge are gone
	// (engine.Launch.Closed).
	closed func()
}

// Close ends pi, then its bridge.
func (p *run) Close() error {
	err := p.Engine.Close()
	p.stop()
	p.srv.Close()
	<-p.served
	err = errors.Join(err, p.dec.Close())
	if p.closed != nil {
		p.closed()
	}
	return err
}

// ProjectResources is what pi's project_trust at its start made of the
// project's own resources, as runtime_launched carries it: loaded when
// the project is trusted, else declined with the reason; nil when pi
// asked nothing or the project has none.
func (p *run) ProjectResources() *events.ProjectResources {
	rep, ok := p.dec.TrustAnswered()
	if !ok || len(rep.Resources) == 0 {
		return nil
	}
	if rep.Trusted {
		return &events.ProjectResources{Loaded: rep.Resources}
	}
	return &events.ProjectResources{Declined: rep.Resources, Reason: rep.Why}
}

// publisher is a pi runtime's publisher: a tool call's end gets what its
// checkpoint recorded, which the bridge's host took at the call's
// tool_result (before pi reports the end), then goes on to next.
type publisher struct {
	next events.Publisher
	dec  *bridge.Decisions
}

func (e publisher) Publish(ev events.Event) {
	if end, ok := ev.(events.ToolEnded); ok && end.Changes == nil && end.ChangesNote == "" {
		end.Changes, end.ChangesNote = e.dec.ToolChanges(end.ToolCallID)
		ev = end
	}
	e.next.Publish(ev)
}

// dialogs passes an extension's dialog to ask (engine.Launch.Ask); with
// no ask, it is cancelled.
func dialogs(ask func(context.Context, events.Dialog) events.DialogReply) func(context.Context, piengine.UIRequest) piengine.UIResponse {
	return func(ctx context.Context, req piengine.UIRequest) piengine.UIResponse {
		if ask == nil {
			return piengine.UIResponse{Cancelled: true}
		}
		reply := ask(ctx, events.Dialog{Method: req.Method, Title: req.Title, Message: req.Message,
			Options: req.Options, Placeholder: req.Placeholder, Prefill: req.Prefill, Timeout: req.Timeout})
		if reply.Cancelled {
			return piengine.UIResponse{Cancelled: true}
		}
		return piengine.UIResponse{Value: reply.Value, Confirmed: reply.Confirmed}
	}
}

// neutral is the bridge's report of what pi sent, as engine.Sent.
func neutral(s bridge.Sent) engine.Sent {
	out := engine.Sent{At: s.At, Pending: s.Pending, SystemPrompt: s.SystemPrompt, Added: s.Added}
	if s.Tools != nil {
		out.Tools = make([]engine.SentTool, len(s.Tools))
		for i, t := range s.Tools {
			out.Tools[i] = engine.SentTool(t)
		}
	}
	return out
}

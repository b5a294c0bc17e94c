// Package piengine runs the user's own pi (1.6 ≤ v < 2) as a runtime's
// engine: one `pi --mode rpc` process per runtime, spoken to over its
// RPC, its events published as pi-tui's typed events (core/events) so that
// nobody showing the session can tell it from the built-in engine. What
// stays pi-tui's (the root, instructions, confinement, approvals, memory)
// goes through the bridge extension pi loads with -e, over a channel of its
// own; this package only launches pi with that channel's two variables
// and reads, for ToolEnded, what the host recorded of each tool call.
//
// A pi that dies is dead for good: the engine says so (Dead, ErrExited)
// and the runtime manager launches a new one for the next prompt.
package piengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
)

// Name is the pi engine's name in engine.Info and runtime_launched.
const Name = "pi"

// Defaults of Config's timeouts.
const (
	DefaultStartTimeout = 60 * time.Second
	DefaultCallTimeout  = 10 * time.Second
)

// errBranchUnsupported is Branch's error when pi offers no way to move
// the leaf in place: pi 1.6's RPC has fork and clone (both make a new
// session file) but no tree navigation; Config.BranchCommand names an
// extension command (the bridge's) that does it. The manager then
// retires the runtime and branches the file (engine.ErrBranchUnsupported).
var errBranchUnsupported = fmt.Errorf("pi's RPC cannot move the session's leaf in place (no tree navigation over RPC): %w", engine.ErrBranchUnsupported)

// Config is what one pi runtime is launched with.
type Config struct {
	Publisher events.Publisher // where the session's events go
	SessionID string           // the events' session

	Pi          Pi     // the program and its version (Locator.Find)
	SessionFile string // --session: the file pi writes (it creates it at the first message)
	Root        string // pi's working directory: the project or its worktree
	AgentDir    string // PI_CODING_AGENT_DIR: pi-tui's agent dir, pi's config

	Provider, Model string // --provider, --model ("" for pi's default)
	Thinking        string // --thinking ("" for the session's or pi's)

	// Bridge is the bridge extension's file (-e), and BridgeSocket and
	// BridgeToken its channel (PI_TUI_BRIDGE_SOCKET, PI_TUI_BRIDGE_TOKEN);
	// empty: pi runs without the bridge (tests, a diagnosis).
	Bridge, BridgeSocket, BridgeToken string

	// Env is the environment pi inherits (nil: this process's); ExtraEnv
	// is added after it (and after the variables above, so it wins);
	// ExtraArgs go after pi's other arguments.
	Env, ExtraEnv []string
	ExtraArgs     []string

	// ToolInfo returns the host's record of a tool call (its preflight,
	// its delivery, the path relative to the root) for ToolEnded; nil:
	// none.
	ToolInfo func(toolCallID string) (*events.Preflight, *events.Delivery, string)
	// ToolParams returns a tool's schema properties in order (the
	// bridge's), which ToolStarted carries; nil: none.
	ToolParams func(tool string) []string
	// ExtensionUI answers an extension's dialog (select, confirm, input,
	// editor); its context ends when the dialog's timeout passes or pi
	// goes. nil: dialogs are cancelled, with a Notice saying so.
	ExtensionUI func(context.Context, UIRequest) UIResponse
	// BranchCommand is the extension command (without "/") that moves
	// the leaf to the entry id given as its argument, e.g. the bridge's;
	// "": Branch returns engine.ErrBranchUnsupported.
	BranchCommand string

	StartTimeout time.Duration // for pi to answer its first command (default 60 s)
	CallTimeout  time.Duration // for the commands that take no context (default 10 s)
	TermGrace    time.Duration // Close: after stdin is closed, before SIGTERM (default 3 s)
	KillGrace    time.Duration // Close: after SIGTERM, before SIGKILL (default 2 s)
	MaxLine      int           // longest stdout line taken (default 32 MiB)
}

// Engine is one running pi. It implements engine.Engine; Dead reports a
// pi that exited, and Call passes pi's own commands through.
type Engine struct{ *core }

// core is the engine's state; the goroutines reading pi hold it, never
// the Engine, so a dropped Engine is collected and its cleanup kills pi.
type core struct {
	cfg  Config
	proc *process
	rpc  *client
	info engine.Info
	pub  events.Publisher

	life context.Context // ends when pi is gone (dialogs wait on it)
	// dialogs holds a token per extension dialog open (at most maxDialogs).
	dialogs chan struct{}
	stop    context.CancelFunc

	mu         sync.Mutex
	dead       error // why pi is gone; nil while it runs
	busy       bool  // a Prompt, Compact or Branch holds the engine
	compacting bool
	cur        *run // the run being published, nil between runs
	queued     int
	usage      provider.Usage // of the engine's life
	window     int
	tuned      tuning            // the model and thinking level asked for (retune.go)
	mod        model             // the model pi runs, to name its server in errors
	partial    map[string]string // toolCallId → the tool's partial output so far
}

// run is one prompt's work in pi, agent_start to agent_settled (retries,
// steering and follow-ups included).
type run struct {
	owned   bool // a Prompt waits for it (not a run an extension started)
	started bool // AgentStarted published
	ended   bool // AgentEnded published
	done    chan struct{}

	text      string          // the last assistant text
	streamed  strings.Builder // the current assistant message's text so far (a long answer in small deltas stays linear)
	stop      string
	errMsg    string
	usage     provider.Usage
	aborted   bool
	unsent    []string
	err       error // pi died during it
	messageOn bool  // an assistant message started and has not ended
}

// New launches pi for one runtime and waits until it answers (get_state,
// which also gives the model's context window). A pi that dies at start
// is an ExitError with its last stderr lines.
func New(ctx context.Context, cfg Config) (engine.Engine, error) {
	e, err := Launch(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Launch is New returning the concrete engine.
func Launch(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Pi.Path == "" {
		return nil, errors.New("no pi to launch (Config.Pi is empty)")
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	pub := cfg.Publisher
	if pub == nil {
		pub = discard{}
	}
	// pi's warnings (an unknown model id it runs anyway, models it cannot
	// find) are said as pi says them in a terminal.
	warn := func(text string) {
		pub.Publish(events.Notice{SessionID: cfg.SessionID, Level: "warning", Source: "pi", Text: "pi warns: " + text})
	}
	proc, err := start(procSpec{argv: cfg.Pi.Argv(cfg.args()...), dir: cfg.Root, env: cfg.env(), termGrace: cfg.TermGrace, killGrace: cfg.KillGrace, warn: warn})
	if err != nil {
		return nil, err
	}
	c := &core{cfg: cfg, proc: proc, pub: pub, info: engine.Info{Name: Name, Version: cfg.Pi.Version}, partial: map[string]string{}, dialogs: make(chan struct{}, maxDialogs),
		tuned: tuning{provider: cfg.Provider, model: cfg.Model, thinking: cfg.Thinking}}
	c.life, c.stop = context.WithCancel(context.Background())
	c.rpc = newClient(proc.stdout, proc.stdin, cfg.MaxLine, c.handle, c.ended)
	e := &Engine{c}
	runtime.AddCleanup(e, func(p *process) { p.kill() }, proc)

	sctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	data, err := c.rpc.Call(sctx, "get_state", nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("pi did not answer within %v of its start%s", cfg.StartTimeout, stderrSuffix(proc.stderr.Lines()))
		}
		proc.kill()
		<-proc.exited
		return nil, err
	}
	var st struct {
		Model *struct {
			ContextWindow int    `json:"contextWindow"`
			Provider      string `json:"provider"`
			BaseURL       string `json:"baseUrl"`
		} `json:"model"`
	}
	if json.Unmarshal(data, &st) == nil && st.Model != nil {
		c.mu.Lock()
		c.window = st.Model.ContextWindow
		c.mod = model{provider: st.Model.Provider, baseURL: st.Model.BaseURL}
		c.mu.Unlock()
	}
	return e, nil
}

func stderrSuffix(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return ": " + strings.Join(lines, " | ")
}

// args are pi's arguments after the program.
func (cfg Config) args() []string {
	a := []string{"--mode", "rpc", "--no-context-files"}
	if cfg.SessionFile != "" {
		a = append(a, "--session", cfg.SessionFile)
	}
	if cfg.Bridge != "" {
		a = append(a, "-e", cfg.Bridge)
	}
	if cfg.Provider != "" {
		a = append(a, "--provider", cfg.Provider)
	}
	if cfg.Model != "" {
		a = append(a, "--model", cfg.Model)
	}
	if cfg.Thinking != "" {
		a = append(a, "--thinking", cfg.Thinking)
	}
	return append(a, cfg.ExtraArgs...)
}

// env is pi's environment: the caller's, the quiet settings, the agent
// dir and the bridge's channel, then ExtraEnv.
func (cfg Config) env() []string {
	base := cfg.Env
	if base == nil {
		base = os.Environ()
	}
	drop := map[string]bool{EnvBridgeSocket: true, EnvBridgeToken: true}
	if cfg.AgentDir != "" {
		drop[EnvAgentDir] = true
	}
	out := make([]string, 0, len(base)+8)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv) // a stale channel of a parent pi-tui never leaks through
		}
	}
	out = append(out, quietEnv...)
	if v := jitiCacheEnv(out); v != "" {
		out = append(out, v)
	}
	if cfg.AgentDir != "" {
		out = append(out, EnvAgentDir+"="+cfg.AgentDir)
	}
	if cfg.BridgeSocket != "" {
		out = append(out, EnvBridgeSocket+"="+cfg.BridgeSocket, EnvBridgeToken+"="+cfg.BridgeToken)
	}
	return append(out, cfg.ExtraEnv...)
}

type discard struct{}

func (discard) Publish(events.Event) {}

func (c *core) publish(e events.Event) { c.pub.Publish(e) }

// Info names the engine ("pi") and pi's version.
func (c *core) Info() engine.Info { return c.info }

// Dead reports whether pi has exited (crashed or closed): the manager
// launches a new engine instead of using this one.
func (c *core) Dead() bool { return c.deadErr() != nil }

func (c *core) deadErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// PID is pi's process id (and its process group's).
func (c *core) PID() int { return c.proc.pid() }

// Stderr returns pi's last stderr lines, oldest first.
func (c *core) Stderr() []string { return c.proc.stderr.Lines() }

// Call sends one of pi's own RPC commands (get_available_models,
// get_commands, get_session_stats, …) and returns its response's data:
// pi-tui's rpc passes them through for the pi engine.
func (c *core) Call(ctx context.Context, command string, params any) (json.RawMessage, error) {
	return c.rpc.Call(ctx, command, params)
}

// Prompt sends the message and waits until pi settles (agent_settled),
// or at once when an extension command handled it. A cancelled ctx
// aborts the run and returns what arrived, Aborted. pi dying mid-run
// returns its ExitError; what arrived stays published.
func (c *core) Prompt(ctx context.Context, text string) (engine.Result, error) {
	c.mu.Lock()
	if c.dead != nil {
		err := c.dead
		c.mu.Unlock()
		c.publish(events.AgentEnded{SessionID: c.cfg.SessionID, StopReason: provider.StopError, Error: err.Error()})
		return engine.Result{}, err
	}
	if c.busy || c.cur != nil {
		c.mu.Unlock()
		return engine.Result{}, engine.ErrBusy
	}
	r := &run{owned: true, done: make(chan struct{})}
	c.busy, c.cur = true, r
	c.mu.Unlock()
	defer c.release()

	data, err := c.rpc.Call(ctx, "prompt", map[string]string{"message": text})
	switch {
	case ctx.Err() != nil:
		c.abortRun(r)
		return c.awaitAborted(r)
	case errors.Is(err, ErrExited):
		<-r.done // the end of the stream ended the run
		return c.result(r), r.err
	case err != nil:
		c.endEarly(r, err.Error())
		return engine.Result{}, err
	}
	var resp struct {
		Disposition string `json:"disposition"`
	}
	_ = json.Unmarshal(data, &resp)
	if resp.Disposition == "handled" && c.endIfNotStarted(r) {
		return engine.Result{}, nil
	}
	select {
	case <-r.done:
		return c.result(r), c.runErr(r)
	case <-ctx.Done():
		c.abortRun(r)
		return c.awaitAborted(r)
	}
}

func (c *core) release() {
	c.mu.Lock()
	c.busy = false
	c.mu.Unlock()
}

// awaitAborted waits for the aborted run to settle, bounded: a pi that
// does not settle is killed (and the manager relaunches it).
func (c *core) awaitAborted(r *run) (engine.Result, error) {
	t := time.NewTimer(c.cfg.CallTimeout)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
		c.proc.kill()
		<-r.done
	}
	res := c.result(r)
	res.Aborted = true
	return res, nil
}

// runErr is why a run failed: pi's death, or the error its last answer
// ended with (a server it could not reach, a refusal), as the built-in
// engine's Prompt returns it; nil for a run that ended well or aborted.
func (c *core) runErr(r *run) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.err == nil && !r.aborted && r.stop == provider.StopError && r.errMsg != "" {
		return errors.New(r.errMsg)
	}
	return r.err
}

func (c *core) result(r *run) engine.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return engine.Result{Text: r.text, Aborted: r.aborted, Usage: r.usage, Unsent: append([]string(nil), r.unsent...)}
}

// endEarly ends a run pi refused (or never started) with its error.
func (c *core) endEarly(r *run, msg string) {
	c.mu.Lock()
	if c.cur == r {
		c.cur = nil
	}
	first := !r.ended
	r.ended = true
	c.mu.Unlock()
	if first {
		c.publish(events.AgentEnded{SessionID: c.cfg.SessionID, StopReason: provider.StopError, Error: msg})
		close(r.done)
	}
}

// endIfNotStarted ends a prompt an extension command handled, unless pi
// started a run for it already (then Prompt waits for it to settle).
func (c *core) endIfNotStarted(r *run) bool {
	c.mu.Lock()
	if r.started || r.ended {
		c.mu.Unlock()
		return false
	}
	r.ended = true
	if c.cur == r {
		c.cur = nil
	}
	c.mu.Unlock()
	c.publish(events.AgentEnded{SessionID: c.cfg.SessionID, StopReason: provider.StopEnd})
	close(r.done)
	return true
}

// Steer queues text for the running turn (pi's steer).
func (c *core) Steer(text string) error { return c.queue("steer", text) }

// FollowUp queues text for when the turn would end (pi's follow_up).
func (c *core) FollowUp(text string) error { return c.queue("follow_up", text) }

func (c *core) queue(command, text string) error {
	c.mu.Lock()
	running, dead := c.cur != nil, c.dead
	c.mu.Unlock()
	if dead != nil {
		return dead
	}
	if !running {
		return engine.ErrIdle
	}
	ctx, cancel := context.WithTimeout(c.life, c.cfg.CallTimeout)
	defer cancel()
	_, err := c.rpc.Call(ctx, command, map[string]string{"message": text})
	return err
}

// Abort stops the running prompt or compaction. The queued messages are
// taken back first (clear_queue) so the prompt returns them as Unsent
// instead of pi running them after the abort.
func (c *core) Abort() {
	c.mu.Lock()
	r, compacting := c.cur, c.compacting
	c.mu.Unlock()
	if r != nil {
		go c.abortRun(r)
	} else if compacting {
		go c.send("abort")
	}
}

func (c *core) abortRun(r *run) {
	ctx, cancel := context.WithTimeout(c.life, c.cfg.CallTimeout)
	defer cancel()
	if data, err := c.rpc.Call(ctx, "clear_queue", nil); err == nil {
		var q struct{ Steering, FollowUp []string }
		if json.Unmarshal(data, &q) == nil {
			c.mu.Lock()
			r.unsent = append(append(r.unsent, q.Steering...), q.FollowUp...)
			c.mu.Unlock()
		}
	}
	_, _ = c.rpc.Call(ctx, "abort", nil)
}

func (c *core) send(command string) {
	ctx, cancel := context.WithTimeout(c.life, c.cfg.CallTimeout)
	defer cancel()
	_, _ = c.rpc.Call(ctx, command, nil)
}

// Compact asks pi to compact (compact, with extra as its custom
// instructions) and returns the summary.
func (c *core) Compact(ctx context.Context, extra string) (string, error) {
	if err := c.hold(true); err != nil {
		return "", err
	}
	defer c.unhold()
	params := map[string]string{}
	if extra != "" {
		params["customInstructions"] = extra
	}
	data, err := c.rpc.Call(ctx, "compact", params)
	if err != nil {
		if ctx.Err() != nil {
			go c.send("abort")
		}
		var pe *ProtocolError
		if errors.As(err, &pe) {
			// pi's compaction_end said it failed, with this reason: the
			// reason alone, so it is said once.
			return "", errors.New(pe.Message)
		}
		return "", err
	}
	var res struct {
		Summary string `json:"summary"`
	}
	_ = json.Unmarshal(data, &res)
	return res.Summary, nil
}

func (c *core) hold(compacting bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead != nil {
		return c.dead
	}
	if c.busy || c.cur != nil {
		return engine.ErrBusy
	}
	c.busy, c.compacting = true, compacting
	return nil
}

func (c *core) unhold() {
	c.mu.Lock()
	c.busy, c.compacting = false, false
	c.mu.Unlock()
}

// Branch moves pi's leaf to entryID through Config.BranchCommand (an
// extension command calling ctx.navigateTree), then checks with
// get_entries that the leaf is there. Without the command: pi 1.6's RPC
// has no in-place move, and Branch returns engine.ErrBranchUnsupported.
func (c *core) Branch(ctx context.Context, entryID string) error {
	if c.cfg.BranchCommand == "" {
		return errBranchUnsupported
	}
	if entryID == "" {
		return errors.New("pi cannot move its leaf before the first entry")
	}
	if strings.ContainsAny(entryID, " \t\r\n") {
		return fmt.Errorf("entry id %q is not one of pi's", entryID)
	}
	if err := c.hold(false); err != nil {
		return err
	}
	defer c.unhold()
	if _, err := c.rpc.Call(ctx, "prompt", map[string]string{"message": "/" + c.cfg.BranchCommand + " " + entryID}); err != nil {
		return err
	}
	data, err := c.rpc.Call(ctx, "get_entries", map[string]string{"since": entryID})
	if err != nil {
		return err
	}
	var got struct {
		LeafID string `json:"leafId"`
	}
	_ = json.Unmarshal(data, &got)
	if got.LeafID != entryID {
		return fmt.Errorf("pi did not move its leaf to %s (it is at %s)", entryID, got.LeafID)
	}
	return nil
}

// State is what the engine tracked from pi's events; it never waits.
func (c *core) State() engine.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return engine.State{Busy: c.busy || c.cur != nil, Usage: c.usage, Queued: c.queued}
}

// ContextWindow is the context window of pi's model (when it started, or
// as set_model reported it).
func (c *core) ContextWindow() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.window
}

// SetSystem reports true: the bridge asks the host for the system text
// at every run, so the next run uses whatever the host holds then.
func (c *core) SetSystem(string) bool { return true }

// Close aborts a running turn, then ends pi: stdin closed, SIGTERM after
// TermGrace, SIGKILL after KillGrace. It returns once pi is reaped and
// what it wrote before was published.
func (c *core) Close() error {
	c.mu.Lock()
	r := c.cur
	dead := c.dead != nil
	c.mu.Unlock()
	if r != nil && !dead {
		ctx, cancel := context.WithTimeout(c.life, c.proc.spec.termGrace)
		_, _ = c.rpc.Call(ctx, "abort", nil)
		cancel()
	}
	c.proc.close()
	<-c.rpc.gone // the stream's end was handled: Dead says true from here on
	return nil
}

// ended runs on the dispatch goroutine once pi's stdout ended and every
// record before was handled: pi is dead (or about to be: it is killed
// after KillGrace), a run in progress ends with pi's exit, and every call
// still pending fails with it.
func (c *core) ended() error {
	if !c.proc.wait(c.proc.spec.killGrace) {
		c.proc.kill()
		<-c.proc.exited
	}
	err := c.proc.exitError()
	c.mu.Lock()
	c.dead = err
	r := c.cur
	c.cur = nil
	c.mu.Unlock()
	c.stop()
	if r != nil {
		c.finish(r, err)
	}
	return err
}

// CommandEnv is the environment of a pi command pi-tui runs outside a
// session (pi auth, pi mcp, pi --list-models): base (nil: this
// process's), the quiet settings and agentDir as PI_CODING_AGENT_DIR, so
// the command reads and writes the same files as pi-tui's sessions.
func CommandEnv(base []string, agentDir string) []string {
	return Config{Env: base, AgentDir: agentDir}.env()
}

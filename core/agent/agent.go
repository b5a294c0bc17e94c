// Package agent is the loop a runtime runs for one session: prompt →
// model → tool calls → results → model … until the model stops. It owns
// the tools (confined to the session's root), approvals, the per-prompt
// instruction claim cache, aborts and compaction. It never reads
// instruction files and never chooses the root: the host binds the root at
// launch and answers preflight requests through the Preflighter interface
// (ADR 0037, 0044). To the runtime manager it is the "builtin" engine
// (engine.go): the manager holds it as an engine.Engine, as it will hold
// the user's own pi.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/filesearch"
	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// maxTurns stops a model that keeps calling tools forever.
const maxTurns = 100

// PreflightInfo records one preflight apart from the tool's own time: the
// record a tool result keeps in the session, and what its ToolEnded event
// carries (one type, so the two never differ).
type PreflightInfo = events.Preflight

// Config is what a runtime is launched with.
type Config struct {
	Session *sessions.Session
	Root    string // bound by the host; the file tools are confined to it
	// Folders are the project's folders, Root first, when it has others
	// (ADR 0085): the file tools reach each, confined to it as to Root.
	// nil: Root alone.
	Folders confine.Folders
	// Reached is told, once per folder, when a tool call allowed to run
	// first names a path in a folder other than Root (the host notes it,
	// so removing the folder can name the session); nil: nobody.
	Reached func(f confine.Folder)
	// AgentDir is pi's agent dir: its models.json names the environment
	// variables holding provider keys, which bash commands do not get.
	AgentDir         string
	Client           provider.Client
	Model            provider.Model
	System           string
	Tools            []string
	Permission       string
	Preflight        toolpolicy.Preflighter
	PreflightTimeout time.Duration
	// BaseChain labels the root chain, the one in the system prompt. It is
	// the chain in effect when a preflight falls back (timeout, error), so
	// the tool result can still say which instructions apply.
	BaseChain []string
	Approve   toolpolicy.Approver
	// Events takes what the agent does (events.Event kinds); nil drops it.
	Events events.Publisher
	// CompactAt is the fraction of the context window at which the loop
	// compacts before the next call; 0 means 0.8. Compaction, when set
	// (pi's compaction.* settings), decides instead (see compact_keep.go).
	CompactAt  float64
	Compaction *pisettings.Compaction
	// Shell is how bash runs (pi's shellPath and shellCommandPrefix).
	Shell pisettings.Shell
	// Memory is what the remember tool writes through; Tools names
	// remember only when the host set it (ADR 0022).
	Memory toolpolicy.MemoryWriter
	// Checkpoints brackets each call that can change files (write, edit,
	// bash), once it is allowed to run, so its changes can be reviewed
	// and undone; nil takes none.
	Checkpoints toolpolicy.Checkpointer
	// Plan says whether the session is in plan mode (plan.go), asked
	// before each model call and each tool call: the model is offered the
	// read-only tools and told to plan, and any other call is refused. nil:
	// never.
	Plan func() bool
}

// claimKey keys the per-prompt claim cache: by (bound root, canonical
// target directory), and by the target exactly as the model wrote it (raw)
// so a repeated target needs no syscall.
type claimKey struct{ root, dir, raw string }

type claimEntry struct {
	claim    toolpolicy.Claim
	fallback bool
}

// Agent runs prompts for one session. One prompt at a time.
type Agent struct {
	cfg Config

	mu     sync.Mutex
	busy   bool
	cancel context.CancelFunc
	claims map[claimKey]claimEntry
	usage  provider.Usage // of the last model call, for compaction and state
	total  provider.Usage
	// turnBytes counts instruction bytes delivered in the current turn
	// (the tool results answering one model message).
	turnBytes int
	// run executes one tool call (tests replace it with a stuck tool).
	run func(ctx context.Context, env toolEnv, c ToolCall) ToolResult
	// The queue of the running turn (queue.go): steering is delivered
	// before the next model call, followUp when the turn would end. It
	// takes messages while prompting (a prompt's turn runs, not a
	// compaction) until closing (the turn has decided to end), so nothing
	// is queued that the turn would not deliver.
	steering, followUp []string
	prompting, closing bool
	// reach tells Reached of each folder once.
	reach *toolpolicy.Reach
}

// New returns an agent; it does nothing until Prompt.
func New(cfg Config) *Agent {
	if cfg.PreflightTimeout <= 0 {
		cfg.PreflightTimeout = toolpolicy.DefaultPreflightTimeout
	}
	if cfg.Tools == nil {
		cfg.Tools = toolpolicy.DefaultTools
	}
	if cfg.CompactAt <= 0 {
		cfg.CompactAt = 0.8
	}
	if cfg.Events == nil {
		cfg.Events = discard{}
	}
	if len(cfg.Folders) == 0 {
		cfg.Folders = confine.Single(cfg.Root)
	}
	reach := toolpolicy.NewReach(cfg.Reached)
	return &Agent{cfg: cfg, reach: reach, claims: map[claimKey]claimEntry{}, run: func(ctx context.Context, env toolEnv, c ToolCall) ToolResult { return env.run(ctx, c) }}
}

// Busy reports whether a prompt or compaction is running.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.busy
}

// Usage returns the last call's usage and the session total so far.
func (a *Agent) Usage() (last, total provider.Usage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage, a.total
}

// Abort stops the running prompt; the session keeps what arrived, marked.
func (a *Agent) Abort() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
	}
}

// ErrBusy is returned when a prompt is already running.
var ErrBusy = engine.ErrBusy

func (a *Agent) begin(ctx context.Context) (context.Context, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.busy {
		return nil, ErrBusy
	}
	a.busy = true
	ctx, a.cancel = context.WithCancel(ctx)
	// The claim map lives for one prompt (or compaction): instruction edits
	// are visible to the next one.
	a.claims = map[claimKey]claimEntry{}
	return ctx, nil
}

// end marks the agent idle and returns the messages still queued for
// the turn (it ended early), which are dropped here.
func (a *Agent) end() (unsent []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancel != nil {
		a.cancel()
	}
	a.busy, a.cancel, a.prompting, a.closing = false, nil, false, false
	unsent = append(a.steering, a.followUp...)
	a.steering, a.followUp = nil, nil
	return unsent
}

// Result is the outcome of a prompt.
type Result = engine.Result

// discard is the publisher of an agent nobody listens to.
type discard struct{}

func (discard) Publish(events.Event) {}

func (a *Agent) emit(e events.Event) { a.cfg.Events.Publish(e) }

// sid is the session the agent's events belong to.
func (a *Agent) sid() string { return a.cfg.Session.ID() }

// Prompt runs one user message to the end of the agent's turn.
func (a *Agent) Prompt(parent context.Context, text string) (Result, error) {
	ctx, err := a.begin(parent)
	if err != nil {
		a.emit(events.AgentEnded{SessionID: a.sid(), Error: err.Error(), StopReason: provider.StopError})
		return Result{}, err
	}
	s := a.cfg.Session
	user := entries.StoredMessage{Message: provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: text}}}}
	// A session begun here is named after its first prompt; one that
	// another program began (pi names none) keeps showing its own first
	// message, as pi's picker does.
	fresh := s.Leaf() == ""
	_, err = s.Append(ctx, sessions.TypeUser, user)
	if err == nil && fresh && s.Title() == "" {
		err = s.SetTitle(ctx, titleOf(text))
	}
	if err != nil {
		a.end()
		err = fmt.Errorf("the prompt could not be saved, so it was not sent: %w", err)
		// Every prompt ends with one agent_end, failures included.
		a.emit(events.AgentEnded{SessionID: a.sid(), Error: err.Error(), StopReason: provider.StopError})
		return Result{}, err
	}
	a.mu.Lock()
	a.prompting = true // the turn takes steering and follow-ups from here
	a.mu.Unlock()
	a.emit(events.AgentStarted{SessionID: a.sid()})
	before := a.totalUsage()
	res, err := a.loop(ctx)
	// Usage of this prompt, not of the runtime's life.
	res.Usage.InputTokens -= before.InputTokens
	res.Usage.OutputTokens -= before.OutputTokens
	res.Usage.CacheReadTokens -= before.CacheReadTokens
	res.Usage.CacheWriteTokens -= before.CacheWriteTokens
	// Idle before agent_end goes out: a client that answers agent_end with
	// the next prompt must find the agent free.
	if res.Unsent = a.end(); len(res.Unsent) > 0 {
		a.emit(events.QueueChanged{SessionID: a.sid()})
	}
	end := events.AgentEnded{SessionID: a.sid(), Text: res.Text, Usage: &res.Usage, StopReason: provider.StopEnd}
	if res.Aborted {
		end.StopReason = provider.StopAborted
	}
	if err != nil {
		end.StopReason = provider.StopError
	}
	if err != nil {
		end.Error = err.Error()
	}
	a.emit(end)
	return res, err
}

func titleOf(text string) string {
	typed, _ := filesearch.SplitAttached(text) // the files @ attached are not what the prompt is about
	line, _, _ := strings.Cut(strings.TrimSpace(typed), "\n")
	if r := []rune(line); len(r) > 80 {
		line = string(r[:79]) + "…"
	}
	return line
}

func (a *Agent) loop(ctx context.Context) (Result, error) {
	var res Result
	for turn := 0; turn < maxTurns; turn++ {
		if a.needsCompaction() {
			// Nothing before the latest turn to summarise is no reason to
			// fail the turn: the call goes ahead and the model says if the
			// context is too long.
			if err := a.compact(ctx, ""); err != nil && ctx.Err() == nil && !errors.Is(err, ErrNothingToCompact) {
				return res, fmt.Errorf("compaction before the next call failed: %w", err)
			}
		}
		a.mu.Lock()
		a.turnBytes = 0 // the delivery budget is per turn
		a.mu.Unlock()
		msg, entry, stop, err := a.call(ctx)
		res.Usage = a.totalUsage()
		if t := textOf(msg); t != "" {
			res.Text = t
		}
		if ctx.Err() != nil {
			res.Aborted = true
			return res, nil
		}
		if err != nil {
			return res, err
		}
		calls := toolCalls(msg)
		if stop != provider.StopToolUse || len(calls) == 0 {
			// The turn would end here: the messages queued for it go in
			// and it goes on, or it ends and no more can be queued.
			if queued := a.takeQueue(true); len(queued) > 0 {
				if err := a.deliverQueued(ctx, queued); err != nil {
					return res, err
				}
				continue
			}
			return res, nil
		}
		for i, c := range calls {
			if ctx.Err() != nil {
				// Every tool call needs a result, or the next request is
				// invalid: record the rest as aborted.
				res.Aborted = true
				return res, a.recordAborted(calls[i:])
			}
			if err := a.execute(ctx, c, entry); err != nil {
				// The model must not go on over a history that lacks the
				// result (the disk is full or read-only): stop the turn and
				// say why. The next prompt drops the unanswered call.
				return res, err
			}
		}
		if ctx.Err() != nil {
			res.Aborted = true
			return res, nil
		}
		if queued := a.takeQueue(false); len(queued) > 0 {
			if err := a.deliverQueued(ctx, queued); err != nil {
				return res, err
			}
		}
	}
	return res, fmt.Errorf("stopped after %d model calls in one prompt", maxTurns)
}

func (a *Agent) totalUsage() provider.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.total
}

// call makes one model call over the session's context and stores the
// answer (partial answers too, marked); entry is the answer's entry id,
// the one its tool calls' checkpoints name.
func (a *Agent) call(ctx context.Context) (msg provider.Message, entry, stop string, err error) {
	system, tools := a.system(), a.cfg.Tools
	if a.planning() {
		system, tools = entries.WithPlan(system), toolpolicy.PlanFilter(tools)
	}
	req := provider.Request{Model: a.cfg.Model.ID, System: system, Messages: Messages(a.cfg.Session.Context()),
		Tools: ToolDefs(tools), MaxTokens: a.cfg.Model.MaxTokens}
	res, err := a.cfg.Client.Stream(ctx, req, func(e provider.Event) {
		switch e.Type {
		case provider.EventTextDelta:
			a.emit(events.TextDelta{SessionID: a.sid(), Text: e.Text})
		case provider.EventThinkingDelta:
			a.emit(events.ThinkingDelta{SessionID: a.sid(), Text: e.Text})
		case provider.EventRetry:
			if r := e.Retry; r != nil {
				a.emit(events.Retrying{SessionID: a.sid(), Attempt: r.Attempt, MaxAttempts: r.Max, Delay: r.Wait, Reason: r.Reason})
			}
		}
	})
	a.mu.Lock()
	a.usage = res.Usage
	a.total.InputTokens += res.Usage.InputTokens
	a.total.OutputTokens += res.Usage.OutputTokens
	a.total.CacheReadTokens += res.Usage.CacheReadTokens
	a.total.CacheWriteTokens += res.Usage.CacheWriteTokens
	a.mu.Unlock()
	msg = res.Message
	msg.Role = provider.RoleAssistant
	stored := entries.StoredMessage{Message: msg, Usage: &res.Usage, StopReason: res.StopReason, Partial: res.Partial || err != nil, Model: a.cfg.Model.Provider + "/" + a.cfg.Model.ID, API: a.cfg.Model.API}
	if err != nil {
		stored.Error = err.Error()
		if ctx.Err() != nil {
			stored.StopReason = provider.StopAborted
		}
	}
	if len(msg.Parts) > 0 || err != nil {
		// A cut or aborted answer is kept and marked, never dropped.
		e, serr := a.cfg.Session.Append(context.WithoutCancel(ctx), sessions.TypeAssistant, stored)
		if serr != nil && err == nil {
			err = fmt.Errorf("save the answer: %w", serr)
		}
		entry = e.ID
	}
	a.emit(events.MessageEnded{SessionID: a.sid(), Text: textOf(msg), StopReason: stored.StopReason, Usage: &res.Usage, Error: stored.Error})
	if err != nil && ctx.Err() != nil {
		return msg, entry, provider.StopAborted, nil
	}
	if err != nil {
		return msg, entry, provider.StopError, err
	}
	if stored.Partial {
		// Tool calls of a partial message may be incomplete: do not run them.
		return msg, entry, provider.StopError, nil
	}
	return msg, entry, res.StopReason, nil
}

func textOf(m provider.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == provider.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func toolCalls(m provider.Message) []ToolCall {
	var out []ToolCall
	for _, p := range m.Parts {
		if p.Type == provider.PartToolCall {
			args := p.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out = append(out, ToolCall{ID: p.ToolCallID, Name: p.ToolName, Args: args, Origin: OriginModel})
		}
	}
	return out
}

// approval says whether a call needs the user's approval (toolpolicy.NeedsApproval);
// a tool the agent does not know never runs, so it needs none.
func (a *Agent) approval(c ToolCall, target string) (need bool, reason, canon string) {
	if !toolpolicy.Known(c.Name) {
		return false, "", ""
	}
	return toolpolicy.NeedsApprovalIn(a.cfg.Folders, a.cfg.Permission, c.Name, target)
}

// runInTurn runs a tool call so that an abort ends the turn at once, even
// when a file tool is stuck in a system call no context can interrupt
// (a hung network mount, say): the turn records the call as aborted and
// moves on; the stuck call finishes, or not, on its own. bash is waited
// for, since it stops with its context and reports what it printed.
func (a *Agent) runInTurn(ctx context.Context, env toolEnv, c ToolCall) ToolResult {
	done := make(chan ToolResult, 1)
	go func() { done <- a.run(ctx, env, c) }()
	select {
	case res := <-done:
		return res
	case <-ctx.Done():
	}
	if c.Name == "bash" {
		return <-done
	}
	select {
	case res := <-done:
		return res
	default:
		return ToolResult{Text: "Aborted while the tool was still running; its outcome is unknown.", IsError: true}
	}
}

// execute runs one tool call of the assistant entry entry with its
// preflight, approval and checkpoint, and stores the result. The error is
// a result (or delivery record) that could not be saved; the tool's own
// failures are results.
func (a *Agent) execute(ctx context.Context, c ToolCall, entry string) error {
	a.emit(events.ToolStarted{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, Args: c.Args})
	var pre *PreflightInfo
	var claim toolpolicy.Claim
	target, isFileTool := toolpolicy.FileToolTarget(c.Name, c.Args)
	if a.knownTool(c.Name) && a.planning() && !toolpolicy.PlanAllows(c.Name, false) {
		// Refused before its preflight and approval: it would not run
		// whatever they said.
		res := ToolResult{Text: entries.PlanRefusal(c.Name), IsError: true}
		_, err := a.store(c, res, nil, 0)
		a.emit(events.ToolEnded{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, Path: target, IsError: true, Result: res.Text})
		return err
	}
	if isFileTool {
		pre, claim = a.preflight(ctx, target)
	}
	need, reason, canon := a.approval(c, target)
	env := toolEnv{root: a.cfg.Root, folders: a.cfg.Folders, agentDir: a.cfg.AgentDir, shell: a.cfg.Shell, runOnUseOK: a.cfg.Permission == toolpolicy.PermissionFullAuto, memory: a.cfg.Memory}
	if reason != "" {
		env.approved = canon // asked about below; the approval covers this file only
	}
	env.progress = func(chunk string, skipped int64) {
		a.emit(events.ToolOutput{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, Text: chunk, Skipped: skipped})
	}
	var res ToolResult
	var denial *toolpolicy.DeniedError // the Approver's words for a denial, if any
	switch {
	case !a.knownTool(c.Name):
		res = ToolResult{Text: fmt.Sprintf("Error: there is no tool named %q in this session.", c.Name), IsError: true}
	case need && !a.approved(ctx, c, target, reason, &denial):
		var why error // a plain no when the Approver gave no words
		if denial != nil {
			why = denial
		}
		res = ToolResult{Text: toolpolicy.DeniedText(c.Name, why), IsError: true}
		_, err := a.store(c, res, pre, 0)
		a.emit(events.ToolEnded{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, Path: target, IsError: true, Result: res.Text, Preflight: pre, Denied: true})
		return err
	default:
		// The checkpoint brackets the tool only, allowed and about to run;
		// its cost is not the tool's time. An aborted call may still have
		// changed files (bash stops midway): what it did is recorded.
		if target != "" && len(a.cfg.Folders) > 1 {
			if pl, err := a.cfg.Folders.Resolve(target); err == nil {
				a.reach.Note(pl)
			}
		}
		cp := a.checkpoint(ctx, c, entry, target)
		start := time.Now()
		res = a.runInTurn(ctx, env, c)
		ms := float64(time.Since(start).Microseconds()) / 1000
		changes := cp.After(context.WithoutCancel(ctx))
		var d delivery
		if pre != nil && !res.IsError && c.Origin == OriginModel {
			d = a.deliver(ctx, c, res, pre, claim)
			res.Text += d.block
		}
		entryID, err := a.store(c, res, pre, ms)
		if err == nil && (len(d.record.Delivered) > 0 || len(d.record.Deferred) > 0) {
			d.record.ToolResultID = entryID
			if _, rerr := a.cfg.Session.Append(context.Background(), sessions.TypeCustom, d.record); rerr != nil {
				err = fmt.Errorf("the record of the instructions delivered with the %s result could not be saved, so the turn stopped: %w", c.Name, rerr)
			}
		}
		if err == nil {
			err = a.recordChange(c, entryID, res.Change)
		}
		a.emit(events.ToolEnded{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, Path: a.label(res.Path), IsError: res.IsError,
			Result: res.Text, Preflight: pre, ToolMs: ms, Delivery: d.info, MemoryChange: res.Change, Changes: changes.Changes, ChangesNote: changes.Note})
		return err
	}
	_, err := a.store(c, res, pre, 0)
	a.emit(events.ToolEnded{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, IsError: true, Result: res.Text, Preflight: pre})
	return err
}

// label writes a canonical path for the session and events: relative to
// the root, or NAME:path in another folder.
func (a *Agent) label(canon string) string {
	if canon == "" {
		return ""
	}
	return a.cfg.Folders.Label(canon)
}

// planning reports whether the session is in plan mode now.
func (a *Agent) planning() bool { return a.cfg.Plan != nil && a.cfg.Plan() }

func (a *Agent) knownTool(name string) bool {
	for _, t := range a.cfg.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// approved asks the Approver; a denial with a DeniedError sets *denial.
func (a *Agent) approved(ctx context.Context, c ToolCall, target, reason string, denial **toolpolicy.DeniedError) bool {
	if a.cfg.Approve == nil {
		return false
	}
	req := toolpolicy.Approval{ToolCallID: c.ID, Tool: c.Name, Args: c.Args, Reason: reason}
	if target != "" {
		req.Path = target
		toolpolicy.InFolder(a.cfg.Folders, target, &req)
	}
	if c.Name == "bash" {
		var args struct {
			Command string `json:"command"`
		}
		json.Unmarshal(c.Args, &args)
		req.Command = args.Command
	}
	ok, err := a.cfg.Approve(ctx, req)
	var denied *toolpolicy.DeniedError
	if errors.As(err, &denied) {
		*denial = denied
	}
	return err == nil && ok
}

func (a *Agent) store(c ToolCall, res ToolResult, pre *PreflightInfo, ms float64) (string, error) {
	msg := provider.Message{Role: provider.RoleTool, Parts: []provider.Part{{Type: provider.PartToolResult, ToolCallID: c.ID,
		ToolName: c.Name, Text: res.Text, IsError: res.IsError}}}
	stored := entries.StoredMessage{Message: msg, Tool: c.Name, Preflight: pre, ToolMs: ms}
	if res.Path != "" {
		stored.Path = a.label(res.Path)
	}
	e, err := a.cfg.Session.Append(context.Background(), sessions.TypeToolResult, stored)
	if err != nil {
		return "", fmt.Errorf("the %s result could not be saved, so the turn stopped: %w", c.Name, err)
	}
	return e.ID, nil
}

// recordAborted stores a result for each call that will not run; the
// first save that fails is returned (the rest are tried anyway).
func (a *Agent) recordAborted(calls []ToolCall) error {
	var first error
	for _, c := range calls {
		res := ToolResult{Text: "The user aborted before this tool ran.", IsError: true}
		if _, err := a.store(c, res, nil, 0); err != nil && first == nil {
			first = err
		}
		a.emit(events.ToolEnded{SessionID: a.sid(), ToolCallID: c.ID, ToolName: c.Name, IsError: true, Result: res.Text})
	}
	return first
}

// preflight asks the host for target's chain, through the per-prompt claim
// cache keyed by (bound root, canonical target directory). Both successes
// and fallbacks are cached. The call is bounded; a stalled or failing host
// gives the base chain, marked.
func (a *Agent) preflight(ctx context.Context, target string) (*PreflightInfo, toolpolicy.Claim) {
	start := time.Now()
	// Fast path: a target already seen in this prompt, spelled the same,
	// costs a map lookup and no syscall.
	raw := claimKey{root: a.cfg.Root, raw: target}
	a.mu.Lock()
	ce, hit := a.claims[raw]
	a.mu.Unlock()
	if !hit {
		pl, err := a.cfg.Folders.Resolve(target)
		if err != nil {
			return nil, toolpolicy.Claim{} // the tool itself refuses the path
		}
		canon := pl.Canon
		dir := canon
		if fi, err := os.Stat(canon); err != nil || !fi.IsDir() {
			dir = filepath.Dir(canon)
		}
		key := claimKey{root: a.cfg.Root, dir: dir}
		a.mu.Lock()
		ce, hit = a.claims[key]
		a.mu.Unlock()
		if !hit {
			ce = a.ask(ctx, target)
		}
		a.mu.Lock()
		a.claims[key], a.claims[raw] = ce, ce
		a.mu.Unlock()
	}
	info := &PreflightInfo{Cache: "hit"}
	if !hit {
		info.Cache = "miss"
	}
	if ce.fallback {
		info.Fallback = "base"
	}
	info.Labels, info.Withheld = ce.claim.Labels, ce.claim.Withheld
	info.Ms = float64(time.Since(start).Microseconds()) / 1000
	return info, ce.claim
}

func (a *Agent) ask(ctx context.Context, target string) claimEntry {
	if a.cfg.Preflight == nil {
		return claimEntry{fallback: true, claim: toolpolicy.Claim{Fallback: true, Reason: "no preflight proxy"}}
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.PreflightTimeout)
	defer cancel()
	type answer struct {
		c   toolpolicy.Claim
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		c, err := a.cfg.Preflight.Preflight(ctx, target)
		ch <- answer{c, err}
	}()
	select {
	case ans := <-ch:
		if ans.err != nil {
			return a.fallback(ans.err.Error())
		}
		return claimEntry{claim: ans.c, fallback: ans.c.Fallback}
	case <-ctx.Done():
		// A host that ignores ctx must not hold the tool: give up now.
		return a.fallback("preflight timed out")
	}
}

// fallback is the claim when the host could not say: the base chain.
func (a *Agent) fallback(reason string) claimEntry {
	base := a.cfg.BaseChain
	return claimEntry{fallback: true, claim: toolpolicy.Claim{Fallback: true, Reason: reason, Labels: base, Base: base}}
}

// SetSystem replaces the system prompt for the agent's next model call.
// The host uses it when the agent's own remember write changed the memory
// section: the runtime carries on with the memory it wrote instead of
// being retired for it.
func (a *Agent) SetSystem(system string) {
	a.mu.Lock()
	a.cfg.System = system
	a.mu.Unlock()
}

func (a *Agent) system() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.System
}

// ClearClaims empties the claim cache (done before each prompt and
// compaction; exposed for the runtime's state reporting and tests).
func (a *Agent) ClearClaims() {
	a.mu.Lock()
	a.claims = map[claimKey]claimEntry{}
	a.mu.Unlock()
}

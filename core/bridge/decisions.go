package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/checkpoints"
	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/pisession"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// Deps is what Decisions decides with: plain values and the interfaces the
// built-in engine is given, so the runtime manager hands both engines the
// same host services.
type Deps struct {
	// Root is the session's root, bound by the host: file tools stay in
	// it, whatever root a request names.
	Root string
	// Folders are the project's folders, Root first, when it has others
	// (ADR 0085): file tools reach each, confined to it as to Root. nil:
	// Root alone.
	Folders confine.Folders
	// Reached is told, once per folder, when a call let run first names a
	// path in a folder other than Root (toolpolicy.Reach, as the built-in
	// engine's Config.Reached); nil: nobody.
	Reached func(confine.Folder)
	// SessionFile is pi's session file (it may not exist yet: pi writes
	// it from the first answer on). The branch window is read from it.
	SessionFile string
	// System renders the root instruction section and the project-memory
	// frame as the built-in engine puts them in its system prompt.
	System func(ctx context.Context) (string, error)
	// Preflight answers the target's chain (nil: no preflight, no
	// delivery). PreflightTimeout bounds one (toolpolicy.DefaultPreflightTimeout
	// when 0); BaseChain is the chain a fallback gives.
	Preflight        toolpolicy.Preflighter
	PreflightTimeout time.Duration
	BaseChain        []string
	// Permission is the permission mode; Approve decides what it asks
	// (nil denies, as in a headless run without --yes).
	Permission string
	Approve    toolpolicy.Approver
	// Memory is the remember tool's writer; nil: no remember tool.
	Memory toolpolicy.MemoryWriter
	// Trusted says whether pi may trust the project and, when not, why,
	// in words that say how to trust it (nil: no). Home is the user's home
	// (pi does not count ~/.agents/skills as the project's).
	Trusted func(ctx context.Context) (ok bool, why string, err error)
	Home    string
	// Checkpoints brackets each call that can change files, as in the
	// built-in engine (toolpolicy.CheckpointPaths); nil takes none.
	Checkpoints toolpolicy.Checkpointer
	// Plan says whether the session is in plan mode (toolpolicy.PlanAllows):
	// the system text gets the plan section, pi's active tools are
	// narrowed to the read-only ones, and any other call is blocked. nil:
	// never.
	Plan func() bool
	// Sent is told what pi reports it sends the model (sent.go); nil:
	// only LastSent keeps it.
	Sent func(Sent)
}

// Decisions is pi-tui's side of the bridge for one runtime: the Host the
// Server asks. It keeps, per tool call, what the engine's ToolEnded event
// reports (ToolInfo).
type Decisions struct {
	deps Deps

	mu     sync.Mutex
	trust  *TrustReport            // pi's last project_trust, answered
	params map[string][]string     // each tool's schema properties, in order, as the bridge said them
	cwdOK  string                  // the cwd pi named that sameRoot found to be the root
	claims map[claimKey]claimEntry // per prompt: emptied by System
	added  string                  // the text System answered last
	sent   *Sent                   // what pi reported it sent last
	calls  map[string]*callInfo
	// marks are the checkpoints of calls let run, until their
	// tool_result; ends their results, until their ToolEnded.
	marks pending[toolpolicy.Checkpoint]
	ends  pending[checkpoints.Result]

	reach *toolpolicy.Reach // tells Reached of each folder once

	// dmu serialises delivery decisions: they share the window and the
	// turn's budget.
	dmu       sync.Mutex
	sess      *pisession.Session
	pending   []pendingRecord // records handed to pi, not yet seen in its file
	turn      string          // the assistant entry of the current turn
	turnBytes int
}

// callInfo is what the host knows about one tool call.
type callInfo struct {
	path     string // canonical target of a file tool
	display  string // the target as the tool event shows it
	pre      *events.Preflight
	claim    toolpolicy.Claim
	delivery *events.Delivery
}

// pendingRecord is a delivery record not (yet) in pi's file: one the
// bridge handed to pi, which writes it when its hook returns.
type pendingRecord struct {
	toolCallID string
	entry      sessions.Entry
}

type claimKey struct{ dir, raw string }

type claimEntry struct {
	claim    toolpolicy.Claim
	fallback bool
}

// NewDecisions returns the host for one runtime.
func NewDecisions(d Deps) *Decisions {
	if d.PreflightTimeout <= 0 {
		d.PreflightTimeout = toolpolicy.DefaultPreflightTimeout
	}
	if len(d.Folders) == 0 {
		d.Folders = confine.Single(d.Root)
	}
	return &Decisions{deps: d, reach: toolpolicy.NewReach(d.Reached), claims: map[claimKey]claimEntry{}, calls: map[string]*callInfo{}}
}

// Close releases pi's session file and drops the checkpoints of calls
// that never ended.
func (d *Decisions) Close() error {
	d.mu.Lock()
	d.marks, d.ends = pending[toolpolicy.Checkpoint]{}, pending[checkpoints.Result]{}
	d.mu.Unlock()
	d.dmu.Lock()
	defer d.dmu.Unlock()
	if d.sess != nil {
		return d.sess.Close()
	}
	return nil
}

// ToolInfo returns what the host recorded for a tool call: its preflight,
// its delivery and its target (relative to the root), for the engine's
// ToolEnded event. All are zero for a call the host did not see.
func (d *Decisions) ToolInfo(toolCallID string) (*events.Preflight, *events.Delivery, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.calls[toolCallID]
	if c == nil {
		return nil, nil, ""
	}
	// Asked once, when the call's end is published: its record goes then,
	// so a long-lived runtime does not keep every call it ever saw.
	delete(d.calls, toolCallID)
	return c.pre, c.delivery, c.display
}

// ToolParams returns a tool's schema properties in order, as the bridge
// last said them (nil: not known), for the engine's ToolStarted.
func (d *Decisions) ToolParams(tool string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.params[tool]
}

// setParams keeps a tool's schema order; d.mu is held.
func (d *Decisions) setParams(tool string, params []string) {
	if len(params) == 0 {
		return
	}
	if d.params == nil {
		d.params = map[string][]string{}
	}
	d.params[tool] = params
}

// RememberAllowed implements Host.
func (d *Decisions) RememberAllowed() bool { return d.deps.Memory != nil }

// System implements Host. It starts a prompt: the claims cached for the
// last one are dropped, so instruction edits are seen. In plan mode the
// text ends with the plan section and the answer names the tools pi is to
// offer: the read-only built-in ones and those of req's that their author
// marks read-only.
func (d *Decisions) System(ctx context.Context, req SystemRequest) (SystemResult, error) {
	d.mu.Lock()
	d.claims = map[claimKey]claimEntry{}
	for _, t := range req.Tools {
		d.setParams(t.Name, t.Params)
	}
	d.mu.Unlock()
	d.dmu.Lock()
	d.pending = nil
	d.dmu.Unlock()
	var res SystemResult
	if d.deps.System != nil {
		text, err := d.deps.System(ctx)
		if err != nil {
			return SystemResult{}, err
		}
		res.Text = text
	}
	if d.planning() {
		res.Text, res.Plan = entries.WithPlan(res.Text), true
		res.Tools = slices.Clone(toolpolicy.PlanTools)
		for _, t := range req.Tools {
			if toolpolicy.PlanAllows(t.Name, t.ReadOnly) && !slices.Contains(res.Tools, t.Name) {
				res.Tools = append(res.Tools, t.Name)
			}
		}
	}
	d.mu.Lock()
	d.added = res.Text
	d.mu.Unlock()
	return res, nil
}

// planning reports whether the session is in plan mode now.
func (d *Decisions) planning() bool { return d.deps.Plan != nil && d.deps.Plan() }

// Remember implements Host with the built-in engine's remember tool.
func (d *Decisions) Remember(ctx context.Context, req RememberRequest) (RememberResult, error) {
	text, _, err := toolpolicy.Remember(ctx, d.deps.Memory, req.Input)
	if err != nil {
		return RememberResult{Text: "Error: " + err.Error(), IsError: true}, nil
	}
	return RememberResult{Text: text}, nil
}

// ToolCall implements Host: confinement, preflight, then approval, as the
// built-in engine runs them for its own tools; a call let run takes its
// checkpoint last, as it is about to run.
func (d *Decisions) ToolCall(ctx context.Context, req ToolCallRequest) (ToolCallResult, error) {
	input := req.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	info := &callInfo{}
	d.mu.Lock()
	d.setParams(req.ToolName, req.Params)
	d.mu.Unlock()
	if err := d.sameRoot(req.Cwd); err != nil {
		// pi's tools would resolve paths, and bash start, in another
		// folder than the one confinement, checkpoints and delivery
		// speak of: nothing runs.
		d.keep(req.ToolCallID, info)
		return ToolCallResult{Block: true, Reason: "Error: " + err.Error()}, nil
	}
	if d.planning() && !toolpolicy.PlanAllows(req.ToolName, req.ReadOnly) {
		// Blocked first: it would not run whatever confinement, preflight
		// or approval said, as in the built-in engine.
		d.keep(req.ToolCallID, info)
		return ToolCallResult{Block: true, Reason: entries.PlanRefusal(req.ToolName)}, nil
	}
	target, isFile := toolpolicy.FileToolTarget(req.ToolName, input)
	var place confine.Place
	if isFile {
		pl, err := d.deps.Folders.Resolve(target)
		if err == nil {
			place = pl
			info.path = pl.Canon
			info.display = pl.Label()
			info.pre, info.claim = d.preflight(ctx, target, pl.Canon)
			// Refused after the preflight, as the built-in engine's read of
			// such a path fails after it: the call's chain is recorded alike.
			err = checkPiPath(req.ToolName, target, pl.Canon)
		}
		if err != nil {
			d.keep(req.ToolCallID, info)
			return ToolCallResult{Block: true, Reason: "Error: " + err.Error()}, nil
		}
	}
	d.keep(req.ToolCallID, info)
	// pi opens a file of another folder where pi-tui confined it,
	// whichever form the model named it in.
	run := ToolCallResult{}
	if place.Index > 0 {
		run.Path = place.Canon
	}
	need, reason, _ := toolpolicy.NeedsApprovalIn(d.deps.Folders, d.deps.Permission, req.ToolName, target)
	if !need {
		d.letRun(ctx, req, info.path, place)
		return run, nil
	}
	ok, err := d.approve(ctx, req, input, target, reason)
	if ok {
		d.letRun(ctx, req, info.path, place)
		return run, nil
	}
	// A denied call's result carries no block, so its chain was never
	// said and leaves the chain in effect as it was (toolpolicy.ChainInEffect):
	// nothing to record.
	return ToolCallResult{Block: true, Reason: toolpolicy.DeniedText(req.ToolName, err)}, nil
}

// letRun is a call about to run: the host hears of the first call to
// reach each other folder, and the call's checkpoint is taken.
func (d *Decisions) letRun(ctx context.Context, req ToolCallRequest, canon string, pl confine.Place) {
	d.reach.Note(pl)
	d.checkpointBefore(ctx, req, canon)
}

func (d *Decisions) keep(id string, info *callInfo) {
	d.mu.Lock()
	d.calls[id] = info
	d.mu.Unlock()
}

// approve asks the Approver as the built-in engine does.
func (d *Decisions) approve(ctx context.Context, req ToolCallRequest, input json.RawMessage, target, reason string) (bool, error) {
	if d.deps.Approve == nil {
		return false, nil
	}
	a := events.Approval{ToolCallID: req.ToolCallID, Tool: req.ToolName, Args: input, Params: req.Params, Reason: reason, Path: target}
	toolpolicy.InFolder(d.deps.Folders, target, &a)
	if req.ToolName == "bash" {
		var args struct {
			Command string `json:"command"`
		}
		json.Unmarshal(input, &args)
		a.Command = args.Command
	}
	ok, err := d.deps.Approve(ctx, a)
	return err == nil && ok, err
}

// preflight asks for target's chain through the per-prompt claim cache,
// keyed by the canonical target directory (and the target as written),
// bounded; a stalled or failing host gives the base chain, marked.
func (d *Decisions) preflight(ctx context.Context, target, canon string) (*events.Preflight, toolpolicy.Claim) {
	start := time.Now()
	raw := claimKey{raw: target}
	d.mu.Lock()
	ce, hit := d.claims[raw]
	d.mu.Unlock()
	if !hit {
		dir := canon
		if fi, err := os.Stat(canon); err != nil || !fi.IsDir() {
			dir = filepath.Dir(canon)
		}
		key := claimKey{dir: dir}
		d.mu.Lock()
		ce, hit = d.claims[key]
		d.mu.Unlock()
		if !hit {
			ce = d.ask(ctx, target)
		}
		d.mu.Lock()
		d.claims[key], d.claims[raw] = ce, ce
		d.mu.Unlock()
	}
	info := &events.Preflight{Cache: "hit", Labels: ce.claim.Labels, Withheld: ce.claim.Withheld}
	if !hit {
		info.Cache = "miss"
	}
	if ce.fallback {
		info.Fallback = "base"
	}
	info.Ms = float64(time.Since(start).Microseconds()) / 1000
	return info, ce.claim
}

func (d *Decisions) ask(ctx context.Context, target string) claimEntry {
	if d.deps.Preflight == nil {
		return d.fallback("no preflight proxy")
	}
	ctx, cancel := context.WithTimeout(ctx, d.deps.PreflightTimeout)
	defer cancel()
	type answer struct {
		c   toolpolicy.Claim
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		c, err := d.deps.Preflight.Preflight(ctx, target)
		ch <- answer{c, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return d.fallback(a.err.Error())
		}
		return claimEntry{claim: a.c, fallback: a.c.Fallback}
	case <-ctx.Done():
		return d.fallback("preflight timed out")
	}
}

func (d *Decisions) fallback(reason string) claimEntry {
	base := d.deps.BaseChain
	return claimEntry{fallback: true, claim: toolpolicy.Claim{Fallback: true, Reason: reason, Labels: base, Base: base}}
}

// ToolResult implements Host: the call's checkpoint is closed (whatever
// the result: a failed command may have changed files), then the delivery
// decision for a successful, model-issued file tool is made over the
// branch pi's file holds plus the records not yet in it.
func (d *Decisions) ToolResult(ctx context.Context, req ToolResultRequest) (ToolResultResult, error) {
	d.checkpointAfter(ctx, req.ToolCallID)
	d.mu.Lock()
	info := d.calls[req.ToolCallID]
	d.mu.Unlock()
	if info == nil || info.pre == nil || d.deps.Preflight == nil || req.IsError || req.ParentToolCallID != "" {
		// Only a successful, model-issued result can carry a block; any
		// other leaves the chain in effect as it was, as in the built-in
		// engine (a failed result does not count there).
		return ToolResultResult{}, nil
	}
	d.dmu.Lock()
	defer d.dmu.Unlock()
	window, turn := d.window(ctx, req.LeafID)
	if turn != d.turn {
		d.turn, d.turnBytes = turn, 0 // the budget is per model turn
	}
	dl := toolpolicy.DecideDelivery(ctx, toolpolicy.DeliveryInput{Tool: req.ToolName, Path: info.path, FullRead: fullRead(req), Wrote: req.ToolName == "write",
		Pre: info.pre, Claim: info.claim, Window: window, TurnBytes: &d.turnBytes, ContextFile: d.deps.Preflight.ContextFile})
	rec := dl.Record
	prevLabels, prevWithheld := toolpolicy.ChainInEffect(window, info.claim.Base)
	changed := !slices.Equal(prevLabels, info.pre.Labels) || !slices.Equal(prevWithheld, info.pre.Withheld)
	if dl.Block == "" && len(rec.Delivered) == 0 && len(rec.Deferred) == 0 && !changed {
		return ToolResultResult{}, nil
	}
	rec.ToolCallID = req.ToolCallID
	rec.Labels, rec.Withheld = nonNil(info.pre.Labels), info.pre.Withheld
	d.pending = append(d.pending, pendingRecord{toolCallID: req.ToolCallID, entry: recordEntry(rec)})
	d.mu.Lock()
	info.delivery = dl.Info
	d.mu.Unlock()
	return ToolResultResult{Append: dl.Block, Entry: &Entry{CustomType: RecordType, Data: rec}}, nil
}

// RecordType is the customType of a delivery record in pi's file: the
// one the built-in engine writes (core/sessions names pi-tui's records
// "pi-tui.<kind>"), so either engine reads the other's.
const RecordType = "pi-tui." + entries.CustomSubdirContext

// fullRead says whether a read returned the whole file: no offset or
// limit asked, and pi's details report no truncation.
func fullRead(req ToolResultRequest) bool {
	if req.ToolName != "read" {
		return false
	}
	var in struct {
		Offset *int `json:"offset"`
		Limit  *int `json:"limit"`
	}
	json.Unmarshal(req.Input, &in)
	if in.Offset != nil && *in.Offset > 1 || in.Limit != nil {
		return false
	}
	var det struct {
		Truncation *struct {
			Truncated bool `json:"truncated"`
		} `json:"truncation"`
	}
	json.Unmarshal(req.Details, &det)
	return det.Truncation == nil || !det.Truncation.Truncated
}

func recordEntry(rec entries.DeliveryRecord) sessions.Entry {
	raw, _ := json.Marshal(rec)
	return sessions.NewEntry("", "", sessions.TypeCustom, raw)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// errNoFile is the window of a session pi has not written yet.
var errNoFile = errors.New("no session file yet")

// sameRoot checks that the folder pi says it works in is the root the
// host bound (both canonical); "" (a bridge that does not say) passes.
func (d *Decisions) sameRoot(cwd string) error {
	if cwd == "" {
		return nil
	}
	d.mu.Lock()
	ok := cwd == d.cwdOK
	d.mu.Unlock()
	if ok {
		return nil
	}
	canon := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	if canon(cwd) != canon(d.deps.Root) {
		return fmt.Errorf("pi works in %s, not in this session's folder %s; pi-tui runs none of its tool calls there", safetext.Label(cwd), safetext.Label(d.deps.Root))
	}
	d.mu.Lock()
	d.cwdOK = cwd
	d.mu.Unlock()
	return nil
}

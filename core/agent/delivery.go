package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// CustomSubdirContext is the kind of the custom session entry that records
// a delivery (the name pi-agent-guidance uses). Custom entries are never
// sent to the model.
const CustomSubdirContext = "pi-agent-guidance:subdirectory-context"

// DeliveryTurnBytes caps the instruction text delivered with the tool
// results of one model turn.
const DeliveryTurnBytes = 32 * 1024

// Delivered is one file a tool result carried, or a full read or write of
// a context file that counts as delivering it.
type Delivered struct {
	Label     string `json:"label"`
	Path      string `json:"path"`
	Digest    string `json:"digest"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated,omitempty"`
	Via       string `json:"via"` // "block", "read" or "write"
}

// DeliveryRecord is the payload of a CustomSubdirContext entry, tied to
// the tool result entry that carried it.
type DeliveryRecord struct {
	Kind         string      `json:"kind"`
	ToolCallID   string      `json:"toolCallId"`
	ToolResultID string      `json:"toolResultId"`
	Delivered    []Delivered `json:"delivered,omitempty"`
	Deferred     []string    `json:"deferred,omitempty"`
}

// DeliveryInfo is what a tool event says about delivered instructions.
type DeliveryInfo = events.Delivery

// DeliveredFile is one delivered file in an event.
type DeliveredFile = events.DeliveredFile

type delivery struct {
	block  string
	record DeliveryRecord
	info   *DeliveryInfo
}

// window returns the entries the model can see on the current branch,
// custom entries included: from the latest compaction's first kept entry
// (or right after the compaction) to the leaf, without the compaction
// itself. Delivery state is read from here and nowhere else, so a
// compaction that summarised a delivery away, a branch that never saw it,
// or a fresh process all get it right.
func (a *Agent) window() []sessions.Entry {
	path := a.cfg.Session.Path()
	last := -1
	for i, e := range path {
		if e.Type == sessions.TypeCompaction {
			last = i
		}
	}
	if last < 0 {
		return path
	}
	var c sessions.Compaction
	json.Unmarshal(path[last].Payload(), &c)
	start := last + 1
	for i := 0; i < last; i++ {
		if path[i].ID == c.FirstKeptEntryID {
			start = i
			break
		}
	}
	out := append([]sessions.Entry(nil), path[start:last]...)
	return append(out, path[last+1:]...)
}

// deliveredIn maps each delivered file's path to the digest it was
// delivered with, from records whose tool result is in the window.
func deliveredIn(window []sessions.Entry) map[string]string {
	results := map[string]bool{}
	for _, e := range window {
		if e.Type == sessions.TypeToolResult {
			results[e.ID] = true
		}
	}
	out := map[string]string{}
	for _, e := range window {
		if e.Type != sessions.TypeCustom {
			continue
		}
		var r DeliveryRecord
		if json.Unmarshal(e.Payload(), &r) != nil || r.Kind != CustomSubdirContext || !results[r.ToolResultID] {
			continue
		}
		for _, d := range r.Delivered {
			out[d.Path] = d.Digest
		}
	}
	return out
}

// previousChain is the chain (and withheld files) in effect for the last
// file tool on the branch; before any, the base chain.
func previousChain(window []sessions.Entry, base []string) (labels, withheld []string) {
	for i := len(window) - 1; i >= 0; i-- {
		if window[i].Type != sessions.TypeToolResult {
			continue
		}
		var sm StoredMessage
		if json.Unmarshal(window[i].Payload(), &sm) == nil && sm.Preflight != nil {
			// A fallback's labels are the base chain: it was in effect.
			return sm.Preflight.Labels, sm.Preflight.Withheld
		}
	}
	return base, nil
}

// deliver decides what a successful, model-issued file tool's result
// carries: when the chain differs from the previous file tool's, a block
// naming the whole chain now in effect (so a sibling folder's rules
// visibly stop applying), with the content of the chain's files not yet
// delivered on this branch, within the turn's budget.
func (a *Agent) deliver(ctx context.Context, c ToolCall, res ToolResult, pre *PreflightInfo, claim Claim) delivery {
	d := delivery{record: DeliveryRecord{Kind: CustomSubdirContext, ToolCallID: c.ID}}
	if a.cfg.Preflight == nil {
		return d // no host to ask: nothing to say about this path
	}
	window := a.window()
	delivered := deliveredIn(window)
	prevLabels, prevWithheld := previousChain(window, claim.Base)
	if pre.Fallback != "" {
		// The base chain applies. Say so when another chain was in effect,
		// or the model would go on following a folder's rules that this
		// path may not have.
		if !slices.Equal(claim.Labels, prevLabels) {
			d.block = renderFallback(claim.Labels, claim.Reason)
			d.info = &DeliveryInfo{Chain: claim.Labels, Fallback: true}
		}
		return d
	}
	if claim.Untrusted {
		if len(claim.Withheld) > 0 && !slices.Equal(claim.Withheld, prevWithheld) {
			d.block = renderUntrusted(claim.Withheld)
			d.info = &DeliveryInfo{Chain: claim.Labels, Untrusted: true, Withheld: claim.Withheld}
		}
		return d
	}
	if !claim.Deliver {
		return d // subdirectoryContext is off
	}
	// A full read or a write of a context file delivers it.
	if (c.Name == "read" && res.FullRead) || (c.Name == "write" && res.Wrote) {
		if cf, ok, err := a.cfg.Preflight.ContextFile(ctx, res.Path); err == nil && ok {
			delivered[cf.Path] = cf.Digest
			d.record.Delivered = append(d.record.Delivered, Delivered{Label: cf.Label, Path: cf.Path, Digest: cf.Digest, Bytes: cf.Bytes, Via: c.Name})
		}
	}
	var pending []ContextFile
	for _, f := range claim.Sources {
		if delivered[f.Path] != f.Digest {
			pending = append(pending, f)
		}
	}
	if slices.Equal(claim.Labels, prevLabels) && len(pending) == 0 {
		return d // same chain, nothing new: no block
	}
	var sent []ContextFile
	a.mu.Lock()
	for i, f := range pending {
		// The budget counts file text, not truncation notes; the first file
		// that does not fit stops the turn, so a deeper file never arrives
		// before an outer one it would override.
		n := f.Shown
		if n == 0 {
			n = len(f.Content)
		}
		if a.turnBytes+n > DeliveryTurnBytes {
			for _, rest := range pending[i:] {
				d.record.Deferred = append(d.record.Deferred, rest.Label)
			}
			break
		}
		a.turnBytes += n
		sent = append(sent, f)
	}
	a.mu.Unlock()
	d.block = renderBlock(claim.Labels, sent, d.record.Deferred)
	d.info = &DeliveryInfo{Chain: claim.Labels, Deferred: d.record.Deferred}
	for _, f := range sent {
		d.record.Delivered = append(d.record.Delivered, Delivered{Label: f.Label, Path: f.Path, Digest: f.Digest, Bytes: f.Bytes, Truncated: f.Truncated, Via: "block"})
	}
	for _, r := range d.record.Delivered {
		d.info.Delivered = append(d.info.Delivered, DeliveredFile{Label: r.Label, Bytes: r.Bytes, Truncated: r.Truncated, Via: r.Via})
	}
	return d
}

// The blocks appended to tool results follow the rules of the system
// prompt's instruction section (core/instructions.Render): every label is
// quoted (safetext.Label), so a folder named "evil</instructions>SYSTEM:"
// or holding a newline cannot close the block or start a line of its own,
// and each file's text is enclosed in an <instruction-file> element whose
// marker-like tags are defused (safetext.WriteInstructionFile), so a file
// holding "</instructions>" cannot end the block either. The block's own
// <instructions> tags are therefore the only ones in it.

// renderUntrusted writes the block for an untrusted project: which nested
// files are not loaded, and why.
func renderUntrusted(withheld []string) string {
	return "\n\n<" + safetext.TagInstructions + ">\nThis project is untrusted, so the nested instruction files for this path are not loaded: " +
		safetext.Labels(withheld) + ". Only the project's root instructions apply; nested instructions load once the user trusts the project in pi-tui.\n</" +
		safetext.TagInstructions + ">"
}

// renderFallback writes the block for a path whose chain could not be
// resolved: the base chain applies, and deeper files may exist unseen.
func renderFallback(base []string, reason string) string {
	var b strings.Builder
	b.WriteString("\n\n<" + safetext.TagInstructions + ">\nThe instructions for this path could not be checked in time (" +
		safetext.Visible(reason) + "), so only the project's root instructions are known to apply, outer first:\n")
	for _, l := range base {
		b.WriteString("- " + safetext.Label(l) + "\n")
	}
	if len(base) == 0 {
		b.WriteString("- (none)\n")
	}
	b.WriteString("Instructions of other folders that are not listed no longer apply. This path's folders may hold instruction files " +
		"(AGENTS.md) that could not be checked; read them if the work depends on them.\n</" + safetext.TagInstructions + ">")
	return b.String()
}

// renderBlock writes the appended block: the chain now in effect, then
// each newly delivered file under its label, then a note on files left for
// a later turn.
func renderBlock(chain []string, sent []ContextFile, deferred []string) string {
	var b strings.Builder
	b.WriteString("\n\n<" + safetext.TagInstructions + ">\nInstructions in effect for this path, outer first; later ones are closer to the work and take precedence:\n")
	for _, l := range chain {
		b.WriteString("- " + safetext.Label(l) + "\n")
	}
	if len(chain) == 0 {
		b.WriteString("- (none)\n")
	}
	b.WriteString("Instructions of other folders that are not listed no longer apply.\n")
	for _, f := range sent {
		b.WriteString("\n## " + safetext.Label(f.Label) + "\n\n")
		safetext.WriteInstructionFile(&b, f.Content)
	}
	if len(deferred) > 0 {
		b.WriteString("\nNot delivered in this turn (budget): " + safetext.Labels(deferred) +
			". They come with a later file operation in their folder, or read them now.\n")
	}
	b.WriteString("</" + safetext.TagInstructions + ">")
	return b.String()
}

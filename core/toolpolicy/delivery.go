package toolpolicy

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// DeliveryTurnBytes caps the instruction text delivered with the tool
// results of one model turn.
const DeliveryTurnBytes = 32 * 1024

// Window returns the entries the model can see on a branch (path, root
// to leaf), custom entries included: from the latest compaction's first
// kept entry (or right after the compaction) to the leaf, without the
// compaction itself. Delivery state is read from here and nowhere else, so
// a compaction that summarised a delivery away, a branch that never saw
// it, or a fresh process all get it right. Both engines call it: the
// built-in one on its session's path, the pi bridge on the path it reads
// from pi's session file.
func Window(path []sessions.Entry) []sessions.Entry {
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
// delivered with, from records whose tool result is in the window. A
// record without a tool result id (the pi bridge's: pi writes the record
// before the result it belongs to, so the id is not known yet) counts
// because it is itself in the window, next to its result.
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
		var r entries.DeliveryRecord
		if json.Unmarshal(e.Payload(), &r) != nil || r.Kind != entries.CustomSubdirContext || (r.ToolResultID != "" && !results[r.ToolResultID]) {
			continue
		}
		for _, d := range r.Delivered {
			out[d.Path] = d.Digest
		}
	}
	return out
}

// previousChain is the chain (and withheld files) the model was last told
// of: the last successful file tool's on the branch; before any, the base
// chain. A failed or denied tool's result carries no block, so its chain
// was never said and does not count: the next result that can carry one
// says the switch. A tool result's preflight says it (the built-in
// engine's results); so does a delivery record that carries its labels
// (the pi bridge's, whose results are pi's and have no place for a
// preflight).
func previousChain(window []sessions.Entry, base []string) (labels, withheld []string) {
	for i := len(window) - 1; i >= 0; i-- {
		switch window[i].Type {
		case sessions.TypeToolResult:
			var sm entries.StoredMessage
			if json.Unmarshal(window[i].Payload(), &sm) == nil && sm.Preflight != nil && !failed(sm.Message) {
				// A fallback's labels are the base chain: it was in effect.
				return sm.Preflight.Labels, sm.Preflight.Withheld
			}
		case sessions.TypeCustom:
			var r entries.DeliveryRecord
			if json.Unmarshal(window[i].Payload(), &r) == nil && r.Kind == entries.CustomSubdirContext && r.Labels != nil {
				return r.Labels, r.Withheld
			}
		}
	}
	return base, nil
}

// failed says whether a stored tool result reports a failure.
func failed(m provider.Message) bool {
	return slices.ContainsFunc(m.Parts, func(p provider.Part) bool { return p.IsError })
}

// ChainInEffect is the chain (and withheld files) in effect on a branch's
// window for the next file tool: the last file tool's, or base before any.
func ChainInEffect(window []sessions.Entry, base []string) (labels, withheld []string) {
	return previousChain(window, base)
}

// DeliveryInput is what a delivery decision is made from: the call (only
// successful, model-issued file tools get here), what its result says
// about the file it touched, the preflight's claim, the model-visible
// window of the branch (Window), and the turn's budget so far.
type DeliveryInput struct {
	Tool     string // "read", "write", …
	Path     string // the canonical file the tool touched
	FullRead bool   // a read that returned the whole file
	Wrote    bool   // a write that succeeded
	Pre      *events.Preflight
	Claim    Claim
	Window   []sessions.Entry
	// TurnBytes is the instruction text already delivered in this turn;
	// the decision adds what it sends.
	TurnBytes *int
	// ContextFile is the host's Preflighter.ContextFile.
	ContextFile func(ctx context.Context, path string) (ContextFile, bool, error)
}

// Delivery is the outcome: the block appended to the tool result ("" for
// none), the record to store after it (worth storing when it delivered or
// deferred a file), and what the tool event says.
type Delivery struct {
	Block  string
	Record entries.DeliveryRecord
	Info   *events.Delivery
}

// DecideDelivery decides what a successful, model-issued file tool's
// result carries: when the chain differs from the previous file tool's, a
// block naming the whole chain now in effect (so a sibling folder's rules
// visibly stop applying), with the content of the chain's files not yet
// delivered on this branch, within the turn's budget. The caller
// serialises decisions of one session (the budget and the window are
// shared).
func DecideDelivery(ctx context.Context, in DeliveryInput) Delivery {
	claim := in.Claim
	d := Delivery{Record: entries.DeliveryRecord{Kind: entries.CustomSubdirContext}}
	delivered := deliveredIn(in.Window)
	prevLabels, prevWithheld := previousChain(in.Window, claim.Base)
	if in.Pre.Fallback != "" {
		// The base chain applies. Say so when another chain was in effect,
		// or the model would go on following a folder's rules that this
		// path may not have.
		if !slices.Equal(claim.Labels, prevLabels) {
			d.Block = renderFallback(claim.Labels, claim.Reason)
			d.Info = &events.Delivery{Chain: claim.Labels, Fallback: true}
		}
		return d
	}
	if claim.Untrusted {
		if len(claim.Withheld) > 0 && !slices.Equal(claim.Withheld, prevWithheld) {
			d.Block = renderUntrusted(claim.Withheld)
			d.Info = &events.Delivery{Chain: claim.Labels, Untrusted: true, Withheld: claim.Withheld}
		}
		return d
	}
	if !claim.Deliver {
		return d // subdirectoryContext is off
	}
	// A full read or a write of a context file delivers it.
	if ((in.Tool == "read" && in.FullRead) || (in.Tool == "write" && in.Wrote)) && in.ContextFile != nil {
		if cf, ok, err := in.ContextFile(ctx, in.Path); err == nil && ok {
			delivered[cf.Path] = cf.Digest
			d.Record.Delivered = append(d.Record.Delivered, entries.Delivered{Label: cf.Label, Path: cf.Path, Digest: cf.Digest, Bytes: cf.Bytes, Via: in.Tool})
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
	for i, f := range pending {
		// The budget counts file text, not truncation notes; the first file
		// that does not fit stops the turn, so a deeper file never arrives
		// before an outer one it would override.
		n := f.Shown
		if n == 0 {
			n = len(f.Content)
		}
		if *in.TurnBytes+n > DeliveryTurnBytes {
			for _, rest := range pending[i:] {
				d.Record.Deferred = append(d.Record.Deferred, rest.Label)
			}
			break
		}
		*in.TurnBytes += n
		sent = append(sent, f)
	}
	d.Block = renderBlock(claim.Labels, sent, d.Record.Deferred)
	d.Info = &events.Delivery{Chain: claim.Labels, Deferred: d.Record.Deferred}
	for _, f := range sent {
		d.Record.Delivered = append(d.Record.Delivered, entries.Delivered{Label: f.Label, Path: f.Path, Digest: f.Digest, Bytes: f.Bytes, Truncated: f.Truncated, Via: "block"})
	}
	for _, r := range d.Record.Delivered {
		d.Info.Delivered = append(d.Info.Delivered, events.DeliveredFile{Label: r.Label, Bytes: r.Bytes, Truncated: r.Truncated, Via: r.Via})
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

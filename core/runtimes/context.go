package runtimes

import (
	"context"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/entries"
)

// /context: the system prompt a session's runtime gets, section by
// section, without launching anything.

// Inspection is what the context inspector shows: the system prompt's
// sections as a runtime for the session would receive them, and the
// instruction sources with their sizes.
type Inspection struct {
	Model string
	// Root is the root the chain was resolved from: the session's
	// worktree, or the project root; ProjectRoot is the project's.
	Root, ProjectRoot string
	Sections          Sections
	// Plan is plan mode's section (entries.PlanPrompt) while the session
	// is in plan mode, "" otherwise; System ends with it, as the model
	// gets it.
	Plan    string
	System  string
	Sources []SourceSize
	// Problems are settings files that could not be used and skill or
	// template files that were skipped, one sentence each.
	Problems []string
	// Pi is set for a session on the pi engine: then System and Pi.Tools
	// are pi's own account of what it sends (docs/adr/0069), not a prompt
	// pi-tui builds, and Sections are unused.
	Pi *PiContext
}

// PiContext is what the pi engine sends the model, as pi's bridge last
// reported it for the session.
type PiContext struct {
	// Sent is when pi sent System and Tools (the last model request whose
	// prompt or tools changed); zero when nothing was sent yet.
	Sent time.Time
	// Known says pi reported its own prompt and tools (at its start, or at
	// a request); false: pi has not started for the session yet, and
	// System is only pi-tui's sections.
	Known bool
	// Own is pi's part of System: its prompt as pi built it (and any other
	// extension changed it). Added is pi-tui's part, its instructions,
	// memory and plan sections, which the bridge appends; before the first
	// request, what the bridge will append.
	Own, Added string
	// Tools are the tool declarations, as the request carried them.
	Tools []engine.SentTool
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
	s, err := m.facade.Open(ctx, sessionID)
	if err != nil {
		return Inspection{}, err
	}
	b, err := m.build(ctx, s, modelSpec)
	if err != nil {
		return Inspection{}, err
	}
	in := Inspection{Model: b.spec.Model, Root: b.spec.Root, ProjectRoot: b.spec.ProjectRoot, Sections: b.spec.Sections, System: b.spec.Sections.System(), Problems: b.settings.problems}
	if m.plans.On(sessionID) {
		in.Plan, in.System = entries.PlanPrompt, entries.WithPlan(in.System)
	}
	if b.engine.Caps.OwnPrompt {
		in.Pi, in.System = m.piContext(sessionID, b.spec.Sections.PiSystem())
	}
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

// piContext is what pi sent for the session (the last report of its
// runtimes' bridges, kept in m.sent), or, before any request, what pi had
// at its start with pi-tui's sections as the bridge will add them; added
// is that text now (Sections.PiSystem, then plan mode's section). It
// returns the whole prompt too.
func (m *Manager) piContext(sessionID, added string) (*PiContext, string) {
	if m.plans.On(sessionID) {
		added = entries.WithPlan(added)
	}
	v, ok := m.sent.Load(sessionID)
	if !ok {
		return &PiContext{Added: added}, added
	}
	s := v.(engine.Sent)
	pc := &PiContext{Known: true, Tools: s.Tools}
	if s.Pending {
		pc.Own, pc.Added = s.SystemPrompt, added
		return pc, bridgePrompt(s.SystemPrompt, added)
	}
	pc.Sent = s.At
	// The bridge appended its text to pi's prompt; an extension after it
	// may have changed the prompt again, and then it is all pi's.
	if tail := "\n\n" + s.Added; s.Added != "" && strings.HasSuffix(s.SystemPrompt, tail) {
		pc.Own, pc.Added = strings.TrimSuffix(s.SystemPrompt, tail), s.Added
	} else {
		pc.Own = s.SystemPrompt
	}
	return pc, s.SystemPrompt
}

// bridgePrompt is pi's prompt with the bridge's text appended, as the
// bridge's before_agent_start returns it.
func bridgePrompt(own, added string) string {
	if added == "" {
		return own
	}
	return own + "\n\n" + added
}

package runtimes

import (
	"context"

	"github.com/pi-tui/pi-tui/core/agent"
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
	// Plan is plan mode's section (agent.PlanPrompt) while the session
	// is in plan mode, "" otherwise; System ends with it, as the model
	// gets it.
	Plan    string
	System  string
	Sources []SourceSize
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
	if m.Plan(sessionID) {
		in.Plan, in.System = agent.PlanPrompt, agent.WithPlan(in.System)
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

package runtimes

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/skills"
)

// resources are what pi's files give a runtime beyond instructions and
// memory: the settings in effect (global settings.json, and the
// project's .pi/settings.json when it is trusted) and the skills and
// prompt templates the project may use.
type resources struct {
	compaction pisettings.Compaction
	retry      pisettings.Retry
	shell      pisettings.Shell
	skills     *skills.Set
	// problems and warnings are one sentence each (broken settings files,
	// skipped skills).
	problems []string
}

// resources reads them afresh: pi may have changed any of them.
func (m *Manager) resources(root string, trusted bool) resources {
	h := m.opts.Host
	e := pisettings.Load(h.Places.AgentDir, root, trusted)
	gs, ps := e.ResourcePaths("skills")
	gp, pp := e.ResourcePaths("prompts")
	r := resources{compaction: e.Compaction(), retry: e.Retry(), shell: e.Shell(h.Places.Home)}
	r.skills = skills.Load(skills.Options{AgentDir: h.Places.AgentDir, Home: h.Places.Home, Root: root, Trusted: trusted,
		GlobalSkillPaths: gs, ProjectSkillPaths: ps, GlobalPromptPaths: gp, ProjectPromptPaths: pp, SkillCommands: e.EnableSkillCommands()})
	for _, p := range e.Problems {
		r.problems = append(r.problems, p.Error())
	}
	r.problems = append(append(r.problems, e.Warnings...), r.skills.Warnings...)
	return r
}

// providerOptions applies retry.* to the model client's options: retries
// off, or the count and first delay the settings give; what they leave
// out keeps the caller's value.
func (r resources) providerOptions(o provider.Options) provider.Options {
	switch {
	case !r.retry.Enabled:
		o.MaxRetries = -1
	case r.retry.MaxRetries != nil && *r.retry.MaxRetries == 0:
		o.MaxRetries = -1
	case r.retry.MaxRetries != nil:
		o.MaxRetries = *r.retry.MaxRetries
	}
	if r.retry.BaseDelay != nil {
		o.Backoff = max(*r.retry.BaseDelay, time.Millisecond)
	}
	return o
}

// String writes the settings a runtime runs with, for its fingerprint.
func (r resources) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "compaction=%t/%d/%d retry=%t", r.compaction.Enabled, r.compaction.ReserveTokens, r.compaction.KeepRecentTokens, r.retry.Enabled)
	if r.retry.MaxRetries != nil {
		fmt.Fprintf(&b, "/%d", *r.retry.MaxRetries)
	}
	if r.retry.BaseDelay != nil {
		fmt.Fprintf(&b, "/%s", *r.retry.BaseDelay)
	}
	fmt.Fprintf(&b, " shell=%q prefix=%q", r.shell.Path, r.shell.Prefix)
	return b.String()
}

// sessionResources reads the resources of a session's project, with its
// trust as trust.json has it now.
func (m *Manager) sessionResources(ctx context.Context, sessionID string) (resources, error) {
	s, err := m.facade.Open(ctx, sessionID)
	if err != nil {
		return resources{}, err
	}
	p, err := m.opts.Host.Projects.Binding(ctx, s.ProjectID())
	if err != nil {
		return resources{}, err
	}
	root := p.Root
	w, bound, err := m.worktrees.Lookup(ctx, s)
	if err != nil {
		return resources{}, err
	}
	if bound {
		root = w.Root // the worktree's checked-out skills and prompts
	}
	return m.resources(root, p.Trusted), nil
}

// Commands returns the skills and prompt templates a session can call
// (the project's own only when it is trusted), for completion in the
// chat input; Warnings say which files were skipped and why.
func (m *Manager) Commands(ctx context.Context, sessionID string) (*skills.Set, error) {
	r, err := m.sessionResources(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return r.skills, nil
}

// Expand turns a prompt that calls a skill (/skill:name args) or a prompt
// template (/name args) into the text the model receives, as pi does
// before sending; other text is returned as it is. The front ends call it
// on what the user typed, before Prompt.
func (m *Manager) Expand(ctx context.Context, sessionID, text string) (string, error) {
	if !strings.HasPrefix(text, "/") {
		return text, nil
	}
	set, err := m.Commands(ctx, sessionID)
	if err != nil {
		return "", err
	}
	return set.Expand(text)
}

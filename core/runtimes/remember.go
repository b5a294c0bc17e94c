package runtimes

import (
	"context"
	"errors"
	"slices"

	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// Agent-written memory, the host side (ADR 0022). A runtime of a trusted
// project whose agent-writes switch is on gets the remember tool; its
// writes go through the memory service like the editor's, and the runtime
// that wrote adopts its own write instead of being retired for it, while
// the project's other idle runtimes are retired as for any memory change.

// withRemember adds the remember tool to tools when the project allows it.
// Untrusted projects never get it, whatever the switch says.
func (m *Manager) withRemember(ctx context.Context, p registry.Project, tools []string) ([]string, error) {
	if !p.Trusted || slices.Contains(tools, toolpolicy.ToolRemember) {
		return tools, nil
	}
	on, err := m.opts.Host.Memory.AgentWrites(ctx, p.ID)
	if err != nil || !on {
		return tools, err
	}
	return append(slices.Clip(tools), toolpolicy.ToolRemember), nil
}

// rememberGuideline ends the base prompt of a runtime that has remember.
const rememberGuideline = "\n- remember saves a note to the project memory, which the user reads and every later session receives. Save only what will still matter (conventions, commands, decisions the user made), never secrets, and say when you saved something."

// baseFor is the base prompt for a tool set.
func baseFor(tools []string) string {
	if slices.Contains(tools, toolpolicy.ToolRemember) {
		return basePrompt + rememberGuideline
	}
	return basePrompt
}

// memoryWriter is one runtime's remember tool on the host side.
type memoryWriter struct {
	m         *Manager
	rt        *Runtime
	projectID string
}

// Remember checks, at the moment of the write, that the project is still
// trusted, still at the runtime's root and still allows agent writes
// (any of them may have changed since the runtime launched), then writes
// and adopts the new memory into the runtime.
func (w *memoryWriter) Remember(ctx context.Context, op memory.Op) (memory.Change, error) {
	h := w.m.opts.Host
	p, err := h.Projects.Binding(ctx, w.projectID)
	if err != nil {
		return memory.Change{}, err
	}
	switch on, err := h.Memory.AgentWrites(ctx, w.projectID); {
	case err != nil:
		return memory.Change{}, err
	case !p.Trusted:
		return memory.Change{}, errors.New("this project is not trusted, so the agent may not write its memory")
	case !on:
		return memory.Change{}, errors.New("the user has turned off agent writes to this project's memory")
	case p.Root != w.rt.Spec.ProjectRoot:
		return memory.Change{}, errors.New("the project has moved since this session started; the memory was not changed")
	}
	saved, ch, err := h.Memory.Apply(ctx, w.rt.Spec.ProjectRoot, op)
	if err != nil {
		return memory.Change{}, err
	}
	w.m.adopt(w.rt, saved.Content)
	return ch, nil
}

// adopt puts the memory a runtime wrote itself into its spec and its
// system prompt: the next model call (in this turn too) sees the note,
// and the next Prepare finds the fingerprint unchanged and reuses the
// runtime. Were the memory changed again by someone else meanwhile, the
// next Prepare sees that difference and retires it, as for any change.
func (m *Manager) adopt(rt *Runtime, projection string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.runtimes[rt.Session.ID()] != rt {
		return
	}
	spec := rt.Spec
	spec.Sections.Memory = memorySection(projection) // under m.mu: not the memo
	if !rt.Engine.SetSystem(spec.Sections.System()) {
		return // the engine keeps its prompt: the next Prepare retires it
	}
	rt.Spec, rt.fp = spec, spec.Fingerprint(m.seed)
}

package runtimes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/instructions"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/core/worktree"
)

// Building a session's spec: what a runtime for it would be launched
// with, rebuilt before every prompt to decide reuse.

// built is a spec with what launching needs.
type built struct {
	spec   Spec
	client provider.Client
	model  provider.Model
	res    *instructions.Resolver
	base   []string // the root chain's labels
	ttl    time.Duration
	// settings are pi's settings.json, skills and templates for the
	// project.
	settings resources
	// engine is the engine chosen, found the program it runs (a Process
	// engine's); maxPi is the cap on live pi processes in force when the
	// spec was built.
	engine engine.Descriptor
	found  engine.Found
	maxPi  int
	notice string // choice.notice
}

// build computes the launch spec of a session: its root, the project's
// trust, the model, the root chain and the project's memory. A session in
// a worktree of its own (ADR 0029) works in that folder: tools, bash and
// the instruction chain use it as the root, while memory and trust stay
// the project's, keyed by the project root. build only reads (ADR 0084):
// it runs before every prompt, for the context inspector, and for each
// change the watcher hears of, and deciding what a runtime would be must
// change nothing; the writes a launch needs are its own steps (prepare
// reconciles the worktree binding).
func (m *Manager) build(ctx context.Context, sess *sessions.Session, modelSpec string) (built, error) {
	h := m.opts.Host
	projectID, sessionID := sess.ProjectID(), sess.ID()
	p, err := h.Projects.Binding(ctx, projectID)
	if err != nil {
		return built{}, err
	}
	if p.Missing {
		return built{}, fmt.Errorf("the project folder %s is gone; restore it or remove the project", p.Root)
	}
	root := p.Root
	// A binding pi-tui cannot verify (a planted or edited session file)
	// refuses here: no tools, no prompt run in a folder it names.
	w, bound, err := m.worktrees.Lookup(ctx, sess)
	if err != nil {
		return built{}, err
	}
	if bound {
		if fi, err := os.Stat(w.Root); err != nil || !fi.IsDir() {
			return built{}, &worktree.MissingError{W: w}
		}
		root = w.Root
	}
	prefs, err := h.Preferences(ctx)
	if err != nil {
		return built{}, err
	}
	eng, err := m.chooseEngine(ctx, prefs.Engine)
	if err != nil {
		return built{}, err
	}
	// pi's settings.json, the project's own only when it is trusted.
	res := m.resources(root, p.Trusted)
	// Manager.Model resolves a spec the same way, for what the programs
	// show before a prompt (model.go).
	client, model, err := m.pickModel(modelSpec, res.providerOptions(m.opts.Provider))
	if err != nil {
		var notice string
		client = nil
		model, notice, err = m.unresolved(eng, modelSpec, err)
		if notice != "" {
			eng.notice = notice
		}
	}
	if err != nil {
		return built{}, err
	}
	resv := m.resolver(instructions.Model{Provider: model.Provider, ID: model.ID})
	chain, err := resv.ResolveRoot(ctx, root)
	if err != nil {
		return built{}, err
	}
	mem, err := h.Memory.Load(ctx, p.Root)
	var unreadable *memory.UnreadableError
	if err != nil && !errors.As(err, &unreadable) {
		return built{}, err
	}
	all, err := h.Projects.FoldersOfBinding(ctx, p)
	if err != nil {
		return built{}, err
	}
	primaryName, others := splitFolders(p.Root, all)
	tools := m.opts.Tools
	if tools == nil {
		tools = toolpolicy.DefaultTools
	}
	if tools, err = m.withRemember(ctx, p, tools); err != nil {
		return built{}, err
	}
	spec := Spec{SessionID: sessionID, Root: root, ProjectRoot: p.Root, PrimaryName: primaryName, Folders: others, Model: model.Provider + "/" + model.ID, Thinking: model.Thinking, KeyTag: model.KeyTag, Tools: tools,
		Permission: prefs.PermissionMode, Trusted: p.Trusted, Sections: Sections{Base: baseFor(tools), Instructions: chain.Text,
			Memory: m.memorySection(p.Root, mem.Content), Skills: res.skills.PromptSection(tools),
			Folders: foldersSection(primaryName, root, others, bound), Environment: environment(root, m.opts.Now())},
		Settings: res.String(), Engine: eng.desc.Name, EngineVersion: eng.found.Version}
	ttl := m.opts.IdleTTL
	if ttl <= 0 {
		ttl = prefs.IdleTTL
	}
	notice := eng.notice
	if shared := sharedNotice(spec); shared != "" {
		notice = strings.TrimPrefix(notice+"; "+shared, "; ")
	}
	return built{spec: spec, client: client, model: model, res: resv, base: labels(chain), ttl: ttl, settings: res, engine: eng.desc, found: eng.found, maxPi: prefs.MaxPiRuntimes, notice: notice}, nil
}

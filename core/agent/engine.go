package agent

import (
	"context"
	"runtime/debug"

	"github.com/pi-tui/pi-tui/core/engine"
)

// Name is the built-in engine's name in engine.Info, runtime_launched,
// the engine setting and --engine.
const Name = "builtin"

// Describe is the built-in engine as the registry holds it (core/engine):
// part of pi-tui, always at hand, with pi-tui's own models, commands and
// thinking levels.
func Describe() engine.Descriptor {
	return engine.Descriptor{Name: Name, Title: "built-in", About: "pi-tui's own engine"}
}

// NewEngine returns pi-tui's own agent as an engine.Engine, the "builtin"
// one: the runtime manager holds it by the interface only, as it holds
// the engine that runs the user's pi.
func NewEngine(cfg Config) engine.Engine {
	return &builtin{a: New(cfg), info: engine.Info{Name: Name, Version: version()}}
}

// builtin adapts an Agent to engine.Engine.
type builtin struct {
	a    *Agent
	info engine.Info
}

func (b *builtin) Info() engine.Info { return b.info }

func (b *builtin) Prompt(ctx context.Context, text string) (engine.Result, error) {
	return b.a.Prompt(ctx, text)
}

func (b *builtin) Steer(text string) error    { return b.a.Steer(text) }
func (b *builtin) FollowUp(text string) error { return b.a.FollowUp(text) }
func (b *builtin) Abort()                     { b.a.Abort() }

func (b *builtin) Compact(ctx context.Context, extra string) (string, error) {
	return b.a.Compact(ctx, extra)
}

// Branch moves the leaf while holding the agent as a prompt would, so no
// prompt starts over a branch half moved.
func (b *builtin) Branch(ctx context.Context, entryID string) error {
	ctx, err := b.a.begin(ctx)
	if err != nil {
		return err
	}
	defer b.a.end()
	return b.a.cfg.Session.Branch(ctx, entryID)
}

func (b *builtin) State() engine.State {
	_, total := b.a.Usage()
	return engine.State{Busy: b.a.Busy(), Usage: total, Queued: b.a.queued()}
}

func (b *builtin) ContextWindow() int { return b.a.cfg.Model.ContextWindow }

func (b *builtin) SetSystem(system string) bool {
	b.a.SetSystem(system)
	return true
}

func (b *builtin) Close() error {
	b.a.Abort()
	return nil
}

// version is pi-tui's own, the builtin engine's: the module version the
// Go toolchain recorded in the binary ("(devel)" when it recorded none).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// Start is the built-in engine's constructor (engine.Descriptor.Start):
// it runs in pi-tui's process and starts at once.
func Start(_ context.Context, l engine.Launch) (engine.Engine, error) {
	return NewEngine(Config{Session: l.Session, Root: l.Root, Folders: l.Folders, Reached: l.Reached, AgentDir: l.AgentDir, Client: l.Client, Model: l.Model,
		System: l.System, Tools: l.Tools, Permission: l.Permission, Preflight: l.Preflight,
		PreflightTimeout: l.PreflightTimeout, BaseChain: l.BaseChain, Approve: l.Approve, Events: l.Events,
		Compaction: &l.Compaction, Shell: l.Shell, Memory: l.Memory, Checkpoints: l.Checkpoints, Plan: l.Plan}), nil
}

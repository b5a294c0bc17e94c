// Package engine is the contract between the runtime manager and what
// runs a session's agent: pi-tui's own Go agent (core/agent, "builtin")
// or the user's own pi in RPC mode (core/piengine). The manager holds
// an Engine and knows no engine's concrete type; every engine publishes
// the same typed events (core/events) on the publisher it was given, so
// the programs showing a session cannot tell which one runs it.
//
// What the manager and the programs need to know of an engine beyond
// running it (its own slash commands and models, whether it is a process
// to find and cap, …) is its Descriptor's Capabilities, never its name;
// the Registry holds the descriptors, and only the composition root
// (core/host) fills it (registry.go,
// docs/adr/0083-the-engine-boundary.md).
//
// What stays with the host whatever the engine: the root, the
// instruction chain and its preflight, memory, confinement, approvals and
// the runtime's fingerprint (core/runtimes).
package engine

import (
	"context"
	"errors"

	"github.com/pi-tui/pi-tui/core/provider"
)

// Engine runs prompts for one session, one at a time. Its methods are
// safe for concurrent use: a program may abort, steer or ask for the
// state while a prompt runs.
type Engine interface {
	// Info names the engine and its version (runtime_launched carries
	// them).
	Info() Info
	// Prompt runs one user message to the end of the agent's turn. It
	// publishes AgentStarted … AgentEnded, and AgentEnded once also when
	// it fails; ErrBusy while another prompt or compaction runs.
	Prompt(ctx context.Context, text string) (Result, error)
	// Steer queues a message for the running turn, delivered before its
	// next model call; FollowUp queues one delivered when the turn would
	// otherwise end. Each publishes QueueChanged. With no turn running
	// they return ErrIdle: send the text as a prompt instead.
	Steer(text string) error
	FollowUp(text string) error
	// Abort stops the running prompt or compaction; what arrived is kept.
	Abort()
	// Compact summarises the context before the latest turn (extra is
	// added to the request) and returns the summary.
	Compact(ctx context.Context, extra string) (string, error)
	// Branch moves the session's leaf to entryID ("" for before the
	// first entry); ErrBusy while a prompt runs. An engine that cannot
	// move it in place returns ErrBranchUnsupported: the manager retires
	// it and branches the session's file instead.
	Branch(ctx context.Context, entryID string) error
	// State reports what the engine knows now. It never waits (no I/O),
	// so the manager may call it under its lock.
	State() State
	// ContextWindow is the context window of the engine's model, in
	// tokens (0 when unknown).
	ContextWindow() int
	// SetSystem asks the engine to use system as its system prompt from
	// its next model call on (the runtime adopting memory its own agent
	// wrote, ADR 0022) and reports whether it did. An engine that cannot
	// says false, and the manager retires it at the next prompt instead.
	SetSystem(system string) bool
	// Close ends the engine, aborting a running turn. The manager calls it
	// when it retires the runtime.
	Close() error
}

// Retuner is an Engine that can take another model or thinking level in
// place, without a restart (pi does, over its RPC). Before a prompt whose
// launch description differs from the runtime's only in the model (and
// the key its provider brings) or the thinking level, the manager asks a
// Retuner to change instead of retiring it; an engine that is not one is
// retired and launched again, as for any other change.
type Retuner interface {
	// Retune makes the engine's model calls from the next prompt on use
	// model (its Provider, ID and Thinking level). It is called only while
	// no prompt runs. An error says the engine could not (a model it does
	// not know, a level it cannot be asked for): it may have taken part of
	// the change, so the manager retires it and launches a new one.
	Retune(ctx context.Context, model provider.Model) error
}

// Info names an engine (its Descriptor's Name) and its version.
type Info struct {
	Name, Version string
}

// Result is the outcome of a prompt.
type Result struct {
	Text    string // the final assistant text
	Aborted bool
	Usage   provider.Usage // of this prompt
	// Unsent are steering and follow-up messages still queued when the
	// turn ended early (aborted, failed): the caller gives them back to
	// the user rather than losing them.
	Unsent []string
}

// State is an engine's own state.
type State struct {
	Busy  bool           // a prompt or compaction runs
	Usage provider.Usage // of the engine's life so far
	// Queued counts the steering and follow-up messages waiting.
	Queued int
}

// ErrBusy is returned when a prompt or compaction is already running.
var ErrBusy = errors.New("the agent is busy with another prompt")

// ErrBranchUnsupported is Branch's error from an engine that cannot move
// the session's leaf in place.
var ErrBranchUnsupported = errors.New("the engine cannot move the session's leaf in place; retire the runtime and branch the file instead")

// ErrIdle is returned by Steer and FollowUp when no turn runs.
var ErrIdle = errors.New("the agent is not working; send the message as a prompt")

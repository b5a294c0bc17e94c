package runtimes

import (
	"sync/atomic"
	"testing"

	"github.com/pi-tui/pi-tui/core/agentsmd"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
)

// countingRig is a rig whose spec builds are counted: each build resolves
// the session's model once, through Options.Resolve.
func countingRig(t *testing.T) (*rig, *atomic.Int64) {
	var r *rig
	builds := new(atomic.Int64)
	r = newRig(t, readThenAnswer, func(o *Options) {
		env, popts := o.Env, o.Provider
		o.Resolve = func(spec string) (provider.Client, provider.Model, error) {
			builds.Add(1)
			return provider.Resolve(r.h.Places.AgentDir, env, spec, popts)
		}
	})
	return r, builds
}

// retiredFor waits for the retirement of the rig's runtime with reason.
func (r *rig) retiredFor(reason string) {
	r.t.Helper()
	r.await(reason+" retirement", func(e events.Event) bool {
		x, ok := e.(events.RuntimeRetired)
		return ok && x.Reason == reason
	})
}

// A README.md (or any Markdown file the chain does not read) saved beside
// AGENTS.md is no change to the runtime's context: the watcher neither
// builds a spec for it nor retires anything. AGENTS.md, saved after it,
// is the mark that the watcher has seen both.
func TestReadmeEditIsNoContextChange(t *testing.T) {
	r, builds := countingRig(t)
	r.prompt("hello")
	r.take()
	builds.Store(0)
	r.write("README.md", "# The project\n")
	r.write("notes.md", "notes\n")
	r.write("AGENTS.md", "Root rule: use spaces.")
	r.retiredFor(ReasonInstructionsChanged)
	if n := builds.Load(); n != 0 {
		t.Errorf("the watcher built %d specs for a README.md, a notes.md and an AGENTS.md; it needs none", n)
	}
	if ret := find[events.RuntimeRetired](r.take()); len(ret) != 1 {
		t.Errorf("retired %+v; want one retirement, for AGENTS.md", ret)
	}
}

// AGENTS.md saved once in pi-tui's editor costs one build: the watcher
// retires the idle runtime without one, and the next prompt builds the
// spec it launches with.
func TestOneAgentsSaveIsOneBuild(t *testing.T) {
	r, builds := countingRig(t)
	r.prompt("hello")
	r.take()
	builds.Store(0)
	d, err := agentsmd.Load(r.root, "AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agentsmd.Save(d, "Root rule: use spaces.\n", false); err != nil {
		t.Fatal(err)
	}
	r.retiredFor(ReasonInstructionsChanged)
	r.prompt("again")
	if n := builds.Load(); n != 1 {
		t.Errorf("one save and one prompt built %d specs, want 1", n)
	}
	ev := r.take()
	if ret, l := find[events.RuntimeRetired](ev), find[events.RuntimeLaunched](ev); len(ret) != 1 || len(l) != 1 || l[0].Reason != ReasonInstructionsChanged {
		t.Errorf("retired %+v, launched %+v; want one of each, for the instructions", ret, l)
	}
}

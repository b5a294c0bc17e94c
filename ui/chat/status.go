package chat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/common"
)

// runState is the open session's runtime as its events report it.
type runState struct {
	state runtimes.RunState
	last  string // the last launch, reuse or retirement, with its reason
	model string // the model it runs
	// usage is the session's token use as pi's footer counts it (the
	// whole session's totals, the context window's use), read after each
	// turn (Manager.Usage).
	usage runtimes.SessionUsage
	// engine and engineVersion are what the last launch ran on
	// ("builtin", "pi" 1.6.0), for the status bar.
	engine, engineVersion string
}

// RuntimeState is the runtime's state for the status bar ("none" when no
// session is open).
func (m *Model) RuntimeState() string { return m.rt.state.String() }

// stateLine is the line above the input: the runtime's state first, then
// what else fits of the model, the extensions' statuses, the last launch,
// tokens and the context meter, then the key hints. It is never cut:
// what does not fit is left out whole, the least needed first, so what
// shows is always whole (the context meter before the launch reason).
func (m *Model) stateLine() string {
	// Each part with its rank: lower ranks go first when the line is
	// full. They show in the order of the slice.
	type part struct {
		text string
		rank int
	}
	var parts []part
	if m.inTurn() && m.rt.state != runtimes.StateIdle {
		// "working" follows the runtime's own state, which agent_end
		// ends in event order; inTurn also covers the moment before it
		// starts.
		parts = append(parts, part{"working… esc aborts", 9})
	}
	parts = append(parts, part{"runtime " + m.rt.state.String(), 9})
	for _, s := range m.ext.statusParts() { // the extensions' setStatus
		parts = append(parts, part{s, 3})
	}
	if m.tune.model != "" {
		parts = append(parts, part{"model " + common.VisibleLine(m.tune.model), 4}) // from the session file
	}
	if t := m.tune.text(); t != "" {
		parts = append(parts, part{t, 5})
	}
	if m.rt.last != "" {
		parts = append(parts, part{m.rt.last, 1})
	}
	if t := tokensText(m.rt.usage); t != "" {
		parts = append(parts, part{t, 2})
		if u := m.rt.usage; u.CacheRead+u.CacheWrite > 0 {
			// The least needed: it goes first when the line is full.
			parts = append(parts, part{fmt.Sprintf("cache %s read, %s written", common.Group(u.CacheRead), common.Group(u.CacheWrite)), 0})
		}
		if c := contextText(m.rt.usage.Context); c != "" {
			parts = append(parts, part{c, 7})
		}
	}
	if len(m.queue) > 0 {
		parts = append(parts, part{fmt.Sprintf("%d queued", len(m.queue)), 8})
	}
	join := func() string {
		texts := make([]string, len(parts))
		for i, p := range parts {
			texts[i] = p.text
		}
		return strings.Join(texts, " · ")
	}
	line := join()
	for ansi.StringWidth(line) > m.width && len(parts) > 1 {
		drop := 0
		for i, p := range parts {
			if p.rank < parts[drop].rank {
				drop = i
			}
		}
		parts = slices.Delete(parts, drop, drop+1)
		line = join()
	}
	// State first: it is what a glance is for; key hints fill what is
	// left, whole or not at all.
	hint := "enter send · alt+enter new line · shift+tab thinking · /compact /tree /new /model /thinking /context"
	if !m.inTurn() || m.rt.state == runtimes.StateIdle {
		if ansi.StringWidth(line)+3+ansi.StringWidth(hint) <= m.width {
			line += " · " + hint
		}
	}
	// One part wider than the whole line (only at widths below the
	// program's minimum) wraps rather than being cut.
	return common.Wrap(line, max(m.width, 10))
}

// tokensText is the session's token totals, "" before any: what went in
// (pi's ↑) and came out (↓); the prompt cache read and written (pi's R
// and W) are a part of their own.
func tokensText(u runtimes.SessionUsage) string {
	if u.Input+u.Output+u.CacheRead+u.CacheWrite == 0 {
		return ""
	}
	return fmt.Sprintf("tokens %s in / %s out", common.Group(u.Input), common.Group(u.Output))
}

// contextText is the context window's use as pi's footer puts it (one
// decimal), "?" when it is not known again yet (after a compaction).
func contextText(c runtimes.ContextUse) string {
	switch {
	case c.Window <= 0:
		return ""
	case !c.Known:
		return fmt.Sprintf("context ? of %dk", c.Window/1000)
	}
	return fmt.Sprintf("context %.1f%% of %dk", c.Percent, c.Window/1000)
}

// runtimeEvent applies a launch, reuse or retirement of the session's
// runtime and reports whether its context window may have changed: a new
// runtime, or a model its engine took in place. state reads the live
// runtime, for the engine a reuse does not name.
func (r *runState) runtimeEvent(e events.Event, state func() runtimes.State) (usage bool) {
	switch e := e.(type) {
	case events.RuntimeLaunched:
		r.state, r.last, r.model = runtimes.StateIdle, "runtime launched: "+reasonText(e.Reason), e.Model
		r.launched(e)
		return true
	case events.RuntimeReused:
		r.state, r.last, r.model = runtimes.StateIdle, "runtime reused", e.Model
		r.engineOf(state()) // the event names none
		if e.Reason == runtimes.ReasonModelChanged || e.Reason == runtimes.ReasonThinkingChanged {
			// The engine took the change in place (ADR 0067): no restart.
			r.last = "runtime reused: " + reasonText(e.Reason) + " in place"
			return true
		}
	case events.RuntimeRetired:
		r.state, r.last = runtimes.StateRetired, "runtime retired: "+reasonText(e.Reason)
	}
	return false
}

// Engine is the open session's engine for the status bar ("" when no
// runtime has said which).
func (m *Model) Engine() string {
	var reg *engine.Registry
	if m.d.Runtime != nil {
		reg = m.d.Runtime.Engines()
	}
	return m.rt.engineText(reg)
}

// engineText names the engine the runtime runs on, as its launch said:
// "pi 1.6.0", "builtin"; "" before one is known. An engine in pi-tui's
// own process (not a Process in reg, core/engine) is named alone: its
// version is pi-tui's.
func (r *runState) engineText(reg *engine.Registry) string {
	e, v := common.VisibleLine(r.engine), common.VisibleLine(r.engineVersion)
	if reg != nil {
		if d, ok := reg.Get(r.engine); ok && !d.Caps.Process {
			v = ""
		}
	}
	switch {
	case e == "":
		return ""
	case v == "":
		return e
	default:
		return e + " " + v
	}
}

// launched records the engine of a launch.
func (r *runState) launched(e events.RuntimeLaunched) {
	r.engine, r.engineVersion = e.Engine, e.EngineVersion
}

// engineOf records the engine of the session's live runtime, when it has
// one: a view opened on a runtime launched before (and reused since,
// whose event names no engine) says it as its launch did.
func (r *runState) engineOf(st runtimes.State) {
	if st.Engine != "" {
		r.engine, r.engineVersion = st.Engine, st.EngineVersion
	}
}

func reasonText(r string) string {
	switch r {
	case runtimes.ReasonInstructionsChanged:
		return "AGENTS.md changed"
	case runtimes.ReasonMemoryChanged:
		return "memory changed"
	case runtimes.ReasonModelChanged:
		return "model changed"
	case runtimes.ReasonThinkingChanged:
		return "thinking level changed"
	case runtimes.ReasonKeyChanged:
		return "API key changed"
	case runtimes.ReasonIdleTimeout:
		return "idle timeout"
	case runtimes.ReasonOtherWriter:
		return "another program wrote to the session"
	case runtimes.ReasonNew:
		return "new"
	}
	return r
}

package chat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

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
	for _, s := range m.statusParts() { // the extensions' setStatus
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

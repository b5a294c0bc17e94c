package chat

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/ui/common"
)

// Effective returns the open session's model and thinking level as the
// next prompt will use them: the ones chosen in the session (/model,
// /thinking, shift+tab, or pi), else what its runtime runs; "" for what
// the session does not decide (the default applies), and both "" when no
// session is open.
func (m *Model) Effective() (model, thinking string) {
	model = m.model
	if model == "" {
		model = m.rt.model
	}
	return model, strings.TrimPrefix(m.thinkingText(), "thinking ")
}

// runState is the open session's runtime as its events report it.
type runState struct {
	state    string         // none, idle, working, retired
	last     string         // the last launch, reuse or retirement, with its reason
	model    string         // the model it runs
	usage    provider.Usage // the last turn's tokens
	lastCall provider.Usage // the last model call, for the context meter
	window   int            // the model's context window
	// engine and engineVersion are what the last launch ran on
	// ("builtin", "pi" 1.6.0), for the status bar.
	engine, engineVersion string
}

// RuntimeState is the runtime's state for the status bar ("none" when no
// session is open).
func (m *Model) RuntimeState() string { return m.rt.state }

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
	if m.working && m.rt.state != "idle" {
		// "working" follows the runtime's own state, which agent_end
		// ends in event order; m.working also covers the moment before
		// it starts.
		parts = append(parts, part{"working… esc aborts", 9})
	}
	parts = append(parts, part{"runtime " + m.rt.state, 9})
	for _, s := range m.statusParts() { // the extensions' setStatus
		parts = append(parts, part{s, 3})
	}
	if m.model != "" {
		parts = append(parts, part{"model " + common.VisibleLine(m.model), 4}) // from the session file
	}
	if t := m.thinkingText(); t != "" {
		parts = append(parts, part{t, 5})
	}
	if m.rt.last != "" {
		parts = append(parts, part{m.rt.last, 1})
	}
	if u := m.rt.usage; u.InputTokens+u.OutputTokens > 0 {
		parts = append(parts, part{fmt.Sprintf("tokens %d in / %d out", u.InputTokens, u.OutputTokens), 2})
		if ctx, w := m.rt.lastCall.InputTokens+m.rt.lastCall.OutputTokens+m.rt.lastCall.CacheReadTokens, m.rt.window; w > 0 && ctx > 0 {
			parts = append(parts, part{fmt.Sprintf("context %d%% of %dk", ctx*100/w, w/1000), 7})
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
	if !m.working || m.rt.state == "idle" {
		if ansi.StringWidth(line)+3+ansi.StringWidth(hint) <= m.width {
			line += " · " + hint
		}
	}
	// One part wider than the whole line (only at widths below the
	// program's minimum) wraps rather than being cut.
	return common.Wrap(line, max(m.width, 10))
}

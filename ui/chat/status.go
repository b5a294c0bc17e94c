package chat

import (
	"fmt"
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

func (m *Model) stateLine() string {
	parts := []string{"runtime " + m.rt.state}
	parts = append(parts, m.statusParts()...) // the extensions' setStatus
	if m.model != "" {
		parts = append(parts, "model "+common.VisibleLine(m.model)) // from the session file
	}
	if t := m.thinkingText(); t != "" {
		parts = append(parts, t)
	}
	if m.rt.last != "" {
		parts = append(parts, m.rt.last)
	}
	if u := m.rt.usage; u.InputTokens+u.OutputTokens > 0 {
		fill := ""
		if ctx, w := m.rt.lastCall.InputTokens+m.rt.lastCall.OutputTokens+m.rt.lastCall.CacheReadTokens, m.rt.window; w > 0 && ctx > 0 {
			fill = fmt.Sprintf(" · context %d%% of %dk", ctx*100/w, w/1000)
		}
		parts = append(parts, fmt.Sprintf("tokens %d in / %d out%s", u.InputTokens, u.OutputTokens, fill))
	}
	if len(m.queue) > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", len(m.queue)))
	}
	// State first: it is what a glance is for; key hints fill what is left.
	line := strings.Join(parts, " · ")
	hint := "enter send · alt+enter new line · shift+tab thinking · /compact /tree /new /model /thinking /context"
	// "working" follows the runtime's own state, which agent_end ends in
	// event order; m.working also covers the moment before it starts.
	if m.working && m.rt.state != "idle" {
		line = "working… esc aborts · " + line
	} else if ansi.StringWidth(line)+3+ansi.StringWidth(hint) <= m.width {
		line += " · " + hint
	}
	return ansi.Truncate(line, m.width, "…")
}

package chat

import (
	"context"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/engine"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/core/sessions"
)

// tuner is the chat's part for what the session's next prompt runs on:
// the model chosen with /model (models.go) and the thinking level chosen
// with shift+tab or /thinking (thinking.go), with the levels the model
// has. Both are kept in the session (records it appends), so resuming it
// keeps them; a session on an engine with models and levels of its own
// takes them from pi's catalogue (picatalogue.go).
type tuner struct {
	*scope
	rts      tunerRuntime
	pi       Catalogue
	ss       Sessions
	agentDir string // models.json and settings.json are read there
	env      func(string) string
	// running is the model the session's runtime runs, as its events say
	// ("" before one is known).
	running func() string

	model string     // model spec chosen with /model ("" = default)
	level string     // thinking level chosen with shift+tab or /thinking ("" = default)
	think thinkState // the level in effect and the levels the model has
}

// tunerRuntime is what the tuner asks of the runtimes: the engine the
// session runs on (its models and levels its own, or pi-tui's) and the
// model its runtime runs.
type tunerRuntime interface {
	EngineOf(ctx context.Context, sessionID string) (engine.Descriptor, error)
	State(sessionID string) runtimes.State
}

// load takes the choices the session holds, on its branch as read.
func (t *tuner) load(entries []sessions.Entry) {
	t.model, t.level = modelOf(entries), levelOf(entries)
}

// left forgets the session the chat left.
func (t *tuner) left() { t.model, t.level, t.think = "", "", thinkState{} }

// spec is the model spec prompts use: the session's model and level.
func (t *tuner) spec() string { return provider.WithThinking(t.model, t.level) }

// effective is the model and thinking level the next prompt uses: the
// ones chosen in the session, else what its runtime runs.
func (t *tuner) effective() (model, thinking string) {
	model = t.model
	if model == "" {
		model = t.running()
	}
	return model, strings.TrimPrefix(t.text(), "thinking ")
}

// Effective returns the open session's model and thinking level as the
// next prompt will use them: the ones chosen in the session (/model,
// /thinking, shift+tab, or pi), else what its runtime runs; "" for what
// the session does not decide (the default applies), and both "" when no
// session is open.
func (m *Model) Effective() (model, thinking string) { return m.tune.effective() }

// ClaimsKey reports whether the open chat takes a key the shell would
// otherwise use: shift+tab cycles the thinking level, as it does in pi.
func (m *Model) ClaimsKey(msg tea.KeyMsg) bool { return key.Matches(msg, m.keys.Level) }

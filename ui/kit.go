package ui

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/runtimes"
)

// KitOptions describe a pi-tui for a script or a test to drive, the way
// a person would (see kit_test.go for a teatest example).
type KitOptions struct {
	DataDir  string // pi-tui's data dir (database, logs); required
	AgentDir string // pi's agent dir (AGENTS.md, models.json); required
	Home     string // for "~" in paths; defaults to DataDir's parent
	// Client answers prompts instead of the configured providers; Model
	// describes it (ID, ContextWindow). Nil Client uses models.json.
	Client provider.Client
	Model  provider.Model
	// Env looks up environment variables ($EDITOR, API keys); nil: none.
	Env func(string) string
	// Renderer sets the colours; nil renders plain text without colour.
	Renderer *lipgloss.Renderer
	// Runtime tunes the runtime manager (Approve decides tool calls
	// needing approval when no dialog does; nil leaves them to the UI's
	// dialog). Its Host and Env are the kit's.
	Runtime runtimes.Options
	// Now is the UI's clock; nil means time.Now. A script moves a fake
	// clock past common.QuietPeriod (and sends common.QuietMsg{}) to let
	// an approval dialog take keys without waiting.
	Now func() time.Time
}

// NewKit returns a root model over a host core of its own (opened by the
// composition root, as the pi-tui command opens it), and a func that
// releases it. The model lives in ctx. It is the constructor for
// automating pi-tui:
//
//	m, done, err := ui.NewKit(ctx, ui.KitOptions{DataDir: d, AgentDir: a, Client: c, Model: provider.Model{ID: "m1"}})
//	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
func NewKit(ctx context.Context, o KitOptions) (*Model, func() error, error) {
	if o.DataDir == "" || o.AgentDir == "" {
		return nil, nil, errors.New("ui kit: DataDir and AgentDir are required")
	}
	if o.Home == "" {
		o.Home = filepath.Dir(o.DataDir)
	}
	if o.Env == nil {
		o.Env = func(string) string { return "" }
	}
	if o.Renderer == nil {
		o.Renderer = lipgloss.NewRenderer(io.Discard)
		o.Renderer.SetColorProfile(termenv.Ascii)
	}
	ro := o.Runtime
	if o.Client != nil {
		client, model := o.Client, o.Model
		if model.Provider == "" {
			model.Provider = "kit"
		}
		ro.Resolve = func(string) (provider.Client, provider.Model, error) { return client, model, nil }
	}
	// The session folder as the command works it out, from the kit's
	// environment (a script's, not the process's).
	pl := paths.Places{DataDir: o.DataDir, AgentDir: o.AgentDir, Home: o.Home, SessionDir: paths.SessionFolder(o.AgentDir, o.Home, o.Env)}
	h, err := host.Open(ctx, pl, host.Options{Env: o.Env, Runtime: ro})
	if err != nil {
		return nil, nil, err
	}
	m := New(Options{Host: h, Context: ctx, Renderer: o.Renderer, Env: o.Env, Now: o.Now})
	return m, h.Close, nil
}

package main

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/screentest"
	"github.com/pi-tui/pi-tui/ui"
	"github.com/pi-tui/pi-tui/ui/common"
)

// The scenario table's terminal UI: the rows a user can only do there
// (answer an approval, read /context, fork) drive pi-tui's own program,
// the one `pi-tui` opens, on the scene's engine and store.

// sceneUI is the terminal UI of a scene, opened on the project "mono".
type sceneUI struct {
	*screentest.Screen
	host *host.Host
	// now is the program's clock in nanoseconds: it stands still until
	// the row moves it, so an approval's quiet period ends when the row
	// says, not after a sleep.
	now *atomic.Int64
}

// ui opens the program on the scene's project, as `pi-tui` in its folder
// does, with the scene's engine chosen (PI_TUI_ENGINE).
func (s *scene) ui() *sceneUI {
	s.t.Helper()
	env := func(k string) string {
		if k == runtimes.EnvEngine {
			return s.engine
		}
		return s.c.env[k]
	}
	a := &app{ctx: context.Background(), env: env}
	h, err := a.openHost()
	if err != nil {
		s.t.Fatal(err)
	}
	// Registered before the screen's own cleanup, so it runs after the
	// program has ended.
	s.t.Cleanup(a.close)
	p, found, err := holding(a.ctx, h.Projects, s.root)
	if err != nil || !found {
		s.t.Fatalf("the project is not registered: %v", err)
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	now := &atomic.Int64{}
	now.Store(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	m := ui.New(ui.Options{Host: h, Context: a.ctx, Renderer: r, Env: env, Start: ui.Start{Project: &p},
		Now: func() time.Time { return time.Unix(0, now.Load()) }})
	u := &sceneUI{Screen: screentest.Start(s.t, m, 140, 40, screentest.Plain), host: h, now: now}
	return u
}

// newSession starts a session from the project's list and waits until
// its runtime has launched.
func (u *sceneUI) newSession() {
	u.T.Helper()
	u.WaitFor("No sessions yet")
	u.Keys("n")
	u.WaitFor("Type a message", "runtime launched: new")
}

// say types text into the chat and sends it.
func (u *sceneUI) say(text string) {
	u.TM.Type(text)
	u.Keys("enter")
}

// settle lets the keyboard rest past the quiet period, on the program's
// clock, and waits until the open approval dialog takes keys.
func (u *sceneUI) settle() {
	u.T.Helper()
	u.now.Add(int64(common.QuietPeriod))
	u.TM.Send(common.QuietMsg{})
	u.WaitFor("▶ ready")
}

// command sends a slash command, which the chat takes only between
// turns, until it draws want. The answer's text arrives a moment before
// the turn's end, so a command right after it may be refused ("waits
// until the agent is done"); it is sent again once that refusal is on
// screen, with another notice between two tries (an unknown command,
// cleared with ctrl+u) so that each refusal is new output.
func (u *sceneUI) command(cmd string, want ...string) {
	u.T.Helper()
	const other = "/no-such-command"
	for range 100 {
		start := u.Raw.Len()
		u.say(cmd)
		if u.WaitAny(want[0], "waits until the agent is done") == want[0] {
			u.WaitFrom(start, want...)
			return
		}
		u.say(other)
		u.WaitAny("unknown command " + other)
		u.Keys("ctrl+u")
	}
	u.T.Fatalf("%s was refused 100 times: the turn never ended", cmd)
}

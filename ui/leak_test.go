package ui

import (
	"context"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/e2egate"
)

// settle waits, bounded by the test's own deadline, until the goroutine
// count is at most want, and returns the last count seen. Goroutines end
// asynchronously after Close; this waits on the count, not on a clock.
func settle(t *testing.T, want int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := runtime.NumGoroutine()
	for n > want && ctx.Err() == nil {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// Every goroutine a program starts ends with it: 200 programs opened and
// closed over one host and one runtime manager (as SSH sessions are)
// leave the goroutine count where it was, on the Projects tab and in an
// open chat (which watches its session for other writers' appends). The
// fast suite opens 20, which a goroutine left per program fails as
// surely; the end-to-end suite (PI_TUI_E2E=1) opens the 200.
func TestProgramsLeaveNoGoroutines(t *testing.T) {
	programs := 20
	if e2egate.Enabled() {
		programs = 200
	}
	f := newFixture(t)
	f.add("proj", "proj", true)
	env := func(string) string { return "" }
	chat := f.project("proj")
	chat.Continue = true
	ctx := context.Background()
	sess, err := f.host.Sessions.Create(ctx, chat.Project.ID, "fix the checkout")
	if err != nil {
		t.Fatal(err)
	}
	msg := map[string]any{"message": provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "fix the checkout"}}}}
	if _, err := sess.Append(ctx, sessions.TypeUser, msg); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		start Start
		// shown is in the frame that shows the program running, its
		// loads done: the project's row, the chat's title, the status
		// bar's model.
		shown []string
	}{
		{"projects", Start{}, []string{"› proj", "no model"}},
		{"chat", *chat, []string{"Session · proj  fix the checkout", "no model"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			open := func() {
				r := lipgloss.NewRenderer(io.Discard)
				r.SetColorProfile(termenv.Ascii)
				m := New(Options{Host: f.host, Renderer: r, Env: env, Start: c.start})
				in, inW := io.Pipe()
				v := &firstView{Model: m, want: c.shown, drawn: make(chan struct{})}
				p := tea.NewProgram(v, tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
				done := make(chan struct{})
				go func() { p.Run(); close(done) }()
				p.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
				<-v.drawn // running: Init's commands have started
				p.Quit()
				<-done
				m.Close()
				inW.Close()
			}
			open() // the first program may start process-wide goroutines (renderers, caches)
			base := runtime.NumGoroutine()
			for range programs {
				open()
			}
			if n := settle(t, base); n > base {
				t.Errorf("goroutines: %d before, %d after %d programs", base, n, programs)
			}
		})
	}
}

// firstView tells when a program has first drawn all of want: when its
// View shows them, which is before the renderer's next frame tick writes
// them out (a wait on the written bytes would add up to a frame, 1/60 s,
// to each of the 400 programs).
type firstView struct {
	tea.Model
	want  []string
	once  sync.Once
	drawn chan struct{}
}

func (v *firstView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := v.Model.Update(msg)
	v.Model = m
	return v, cmd
}

func (v *firstView) View() string {
	s := v.Model.View()
	for _, w := range v.want {
		if !strings.Contains(s, w) {
			return s
		}
	}
	v.once.Do(func() { close(v.drawn) })
	return s
}

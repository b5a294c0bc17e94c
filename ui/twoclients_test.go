package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/ui/common"
)

// second starts another program over the rig's host and runtime manager,
// as a second SSH client of `pi-tui serve` is, on the rig's clock.
func (r *kitRig) second(w, h int) (*session, *Model) {
	r.t.Helper()
	rd := lipgloss.NewRenderer(nil)
	rd.SetColorProfile(termenv.Ascii)
	o := r.m.opts
	m := New(Options{Host: o.Host, Renderer: rd, Env: o.Env, Now: r.clock.now})
	return newSession(r.t, m, w, h), m
}

// openFirstSession opens the project's only session from the list.
func (s *session) openFirstSession(title string) {
	s.t.Helper()
	s.waitFor("proj")
	s.keys("enter", "o")
	s.waitFor(title)
	s.keys("enter")
}

// TestTwoClientsOneSession: one session open in two programs shows the
// same turn live in both (the prompt, streamed text before the answer is
// complete, the tool line, the end); an approval appears in both, is
// answered in one and closes in the other, saying so. A subscriber that
// never reads does not hold the turn up. When one program leaves, the
// other is still asked.
func TestTwoClientsOneSession(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	r := newKitRig(t, 100, 30, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch {
		case req.LastToolResult != "":
			return fakemodel.Reply{Text: "tool said: " + req.LastToolResult}
		case strings.Contains(req.LastUser, "stream"):
			return fakemodel.Reply{Text: "partial words then more", Hold: hold}
		case strings.Contains(req.LastUser, "run"):
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b1", Name: "bash", Args: map[string]string{"command": "touch X"}}}}
		}
		return fakemodel.Reply{Text: "hello back"}
	}, true)
	r.chat()
	r.say("hello there")
	r.waitFor("hello back", "tokens ")

	two, twoModel := r.second(100, 30)
	two.openFirstSession("hello there")
	two.waitFor("hello back")

	// A subscriber that never takes its messages: the turns below end
	// all the same.
	r.m.opts.Host.Events.Subscribe(t.Context(), events.Agent|events.Approvals|events.Projects)

	r.say("stream it")
	// Both see the first words while the model holds the rest back.
	r.waitFor("partial")
	two.waitFor("stream it", "partial")
	close(hold)
	r.waitFor("then more")
	two.waitFor("then more")

	r.say("run it")
	r.waitFor("Allow bash?")
	two.waitFor("Allow bash?", "touch X")
	r.clock.advance(common.QuietPeriod)
	two.tm.Send(common.QuietMsg{})
	two.waitFor("▶ ready")
	two.keys("y")
	two.waitFor("tool said:")
	r.waitFor("approved in another window", "tool said:")
	if !r.exists("X") {
		t.Fatal("the command allowed in the second program did not run")
	}

	// The second program goes; its leaving denies nothing the first one
	// still shows.
	two.final()
	twoModel.Close()
	r.say("run it again")
	r.waitFor("Allow bash?")
	r.settle()
	r.keys("n")
	r.waitFor("denied")
	final := r.final()
	if strings.Count(final, "Allow bash?") != 0 {
		t.Errorf("a dialog stayed open:\n%s", final)
	}
}

// A project renamed in one program shows renamed in another at once: the
// Projects list follows the broker, not a timer.
func TestProjectChangesReachOtherPrograms(t *testing.T) {
	t.Parallel()
	r := newKitRig(t, 100, 30, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "x"} }, true)
	r.waitFor("proj")
	other, _ := r.second(100, 30)
	other.waitFor("proj")
	r.keys("r")
	r.waitFor("Rename")
	r.keys("backspace", "backspace", "backspace", "backspace")
	r.tm.Type("renamed")
	r.keys("enter")
	r.waitFor("renamed")
	other.waitFor("renamed")
	other.final()
	r.final()
}

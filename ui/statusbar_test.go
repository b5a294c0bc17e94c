package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The status bar names the model and thinking level the focused place
// would use, and where the model comes from: the open session's choice on
// the Session tab (right after /model, before any prompt; a model without
// reasoning says thinking is off), the defaults on Projects.
func TestStatusBarShowsTheFocusedModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "pong"} })
	f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k",
		"models":[{"id":"m1"},{"id":"m2","reasoning":true}]}}}`, fake.URL))
	f.write(".pi/agent/settings.json", `{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"low"}`)
	f.add("proj", "proj", true)
	s := f.run(160, 30)
	// The row, not only the status bar: the list loads on its own, and
	// keys before it are for an empty list.
	s.waitFor("› proj", "model: fake/m1 (settings.json) · thinking: low")
	s.keys("enter", "o")
	s.waitFor("No sessions yet")
	s.keys("n")
	s.waitFor("Type a message", "model: fake/m1 (settings.json) · thinking: off (model)")
	s.tm.Type("hi")
	s.keys("enter")
	s.waitFor("pong")
	s.tm.Type("/model")
	s.keys("enter")
	s.waitFor("fake/m2")
	s.keys("down", "enter")
	s.waitScreen("model: fake/m2 (this session) · thinking: low")
	// The bar's line may be the same after a tab switch, and then is not
	// sent again: the frames are what is asserted.
	s.keys("tab") // Settings: still the open session's
	s.waitScreen("Default model", "model: fake/m2 (this session) · thinking: low")
	s.keys("tab") // Projects: the defaults
	s.waitScreen("› proj", "model: fake/m1 (settings.json) · thinking: low")
	view := s.final()
	if !strings.Contains(view, "model: fake/m1") {
		t.Errorf("Projects shows the session's model:\n%s", view)
	}
}

// Invalid settings.json and agent-guidance.json are warnings in the status
// bar, each naming its file.
func TestStatusBarNamesInvalidFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/settings.json", `{"defaultProvider": `)
	f.write(".pi/agent/agent-guidance.json", `[1,`)
	s := f.run(200, 20)
	s.waitFor("settings.json", "agent-guidance.json is invalid")
	s.final()
}

// The status bar says which engine the open session's runtime runs on.
func TestStatusBarShowsTheEngine(t *testing.T) {
	t.Parallel()
	r, sid := extRig(t)
	r.waitScreen("runtime: idle · builtin")
	r.m.opts.Host.Events.Publish(events.RuntimeLaunched{SessionID: sid, Reason: "new", Model: "fake/m1", Engine: "pi", EngineVersion: "1.6.0"})
	r.waitScreen("runtime: idle · pi 1.6.0")
	r.final()
}

// barState is the state on the right of the status bar: the bottom
// line's last run of text after two spaces (a notice may be on its left).
func barState(frame string) string {
	runs := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(lastLine(frame)), -1)
	return runs[len(runs)-1]
}

// The status bar's state leaves out whole parts, the least needed first,
// instead of being cut mid-word at the screen's edge ("… · thinking: off
// (mo", "runtime: work"): where the model comes from and the thinking
// level's reason go before the model, and the engine before the model's
// source where only one fits; the runtime's state and plan mode always
// show. Each state is asserted whole, as the frame shows it.
func TestStatusBarLeavesOutWholeParts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		w, h                   int
		working, idle, planned string
	}{
		{80, 24,
			"model: fake/m1 (first in models.json) · thinking: off · runtime: working",
			"model: fake/m1 (first in models.json) · thinking: off (model) · runtime: idle",
			"plan mode · model: fake/m1 · thinking: off (model) · runtime: idle · builtin"},
		{60, 16,
			"model: fake/m1 · thinking: off (model) · runtime: working",
			"model: fake/m1 · thinking: off · runtime: idle · builtin",
			"plan mode · model: fake/m1 · thinking: off · runtime: idle"},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			hold := make(chan struct{})
			fake := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply {
				return fakemodel.Reply{Text: "pong and the rest", Hold: hold}
			})
			f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k","models":[{"id":"m1"}]}}}`, fake.URL))
			f.add("proj", "proj", true)
			r := &kitRig{session: f.run(c.w, c.h)}
			state := func(want string) {
				t.Helper()
				frame := r.sc.WaitFrame(func(f string) bool { return barState(f) == want })
				assertFrame(t, frame, c.w, c.h)
			}
			r.waitScreen("› proj")
			state("model: fake/m1 (first in models.json) · runtime: none")
			r.keys("enter", "o")
			r.waitFor("No sessions yet")
			r.keys("n")
			r.waitFor("Type a message")
			state(c.idle) // the runtime has started, and said what it runs
			r.say("ping")
			r.waitFor("pong")
			state(c.working)
			close(hold)
			r.waitFor("the rest")
			state(c.idle)
			r.command("/plan", "plan mode on")
			state(c.planned)
			r.final()
		})
	}
}

// A warning is never left out nor cut: too long for one line beside the
// state, it wraps over lines of its own above it, and the status bar
// takes the lines it needs.
func TestStatusBarWrapsALongWarning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/settings.json", `{"defaultProvider": `)
	f.write(".pi/agent/agent-guidance.json", `[1,`)
	s := f.run(60, 16)
	warn := squeezed("⚠ ~/.pi/agent/settings.json:1:20 is not valid JSON (see Settings) · agent-guidance.json is invalid (see Settings)")
	frame := s.sc.WaitFrame(func(f string) bool {
		return strings.Contains(squeezed(f), warn) && barState(f) == "model: no model (see Settings) · runtime: none"
	})
	assertFrame(t, frame, 60, 16)
	lines := strings.Split(frame, "\n")
	if bar := strings.Join(lines[len(lines)-3:], "\n"); strings.Contains(bar, "…") {
		t.Errorf("the status bar is cut:\n%s", bar)
	}
	s.final()
}

// fitParts gives way lowest rank first, to a shorter form or out, then
// brings back what fits again; parts to keep stay however wide.
func TestFitPartsGivesWayLowestFirst(t *testing.T) {
	parts := func() []statusPart {
		return []statusPart{
			part("plan mode", keep),
			shortened("model: fake/m1 (first in models.json)", 3, "model: fake/m1", 5),
			shortened("thinking: off (model)", 1, "thinking: off", 4),
			part("runtime: idle", keep),
			part("builtin", 2),
		}
	}
	for _, c := range []struct {
		width int
		want  string
	}{
		{200, "plan mode · model: fake/m1 (first in models.json) · thinking: off (model) · runtime: idle · builtin"},
		{78, "plan mode · model: fake/m1 · thinking: off (model) · runtime: idle · builtin"},
		{58, "plan mode · model: fake/m1 · thinking: off · runtime: idle"},
		{40, "plan mode · runtime: idle · builtin"}, // the engine fits where the thinking level does not
		{10, "plan mode · runtime: idle"},           // for the caller to wrap
	} {
		if got := fitParts(parts(), c.width); got != c.want {
			t.Errorf("at %d: %q, want %q", c.width, got, c.want)
		}
	}
}

// With models.json invalid no model can be used, whatever settings.json
// names: the status bar says "no model" beside the warning naming the
// file.
func TestStatusBarSaysNoModelWhenModelsJSONIsInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/models.json", `{"providers": {`)
	f.write(".pi/agent/settings.json", `{"defaultProvider":"fake","defaultModel":"m1"}`)
	s := f.run(200, 20)
	s.waitFor("models.json", "model: no model")
	if view := s.final(); strings.Contains(view, "fake/m1") {
		t.Errorf("the status bar names the unusable default:\n%s", view)
	}
}

// A broken settings.json or trust.json is named with its line and column
// in the status bar, and in full in Settings.
func TestBrokenPiFilesAreNamedWithTheirPosition(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/settings.json", "{\n  \"defaultModel\": \"x\",\n  }\n")
	f.write(".pi/agent/trust.json", "{\n  \"/x\": yes\n}\n")
	f.add("proj", "proj", false)
	s := f.run(150, 30)
	s.waitFor("~/.pi/agent/settings.json:3:3 is not valid JSON", "~/.pi/agent/trust.json:2:9 is not valid JSON")
	s.keys("3")
	s.waitFor("settings.json is not valid JSON at line 3, column 3", "trust.json is not valid JSON at line 2, column 9")
	s.final()
}

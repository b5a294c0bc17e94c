package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// With only models.json (settings.json names no default) the status bar
// and Settings show, before any prompt, the model a prompt runs and
// where it comes from; the prompt then runs that model and the bar does
// not change.
func TestOnlyModelsJSONShowsTheModelBeforeAnyPrompt(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			got := make(chan fakemodel.Request, 4)
			fake := fakemodel.New(t, func(_ int, r fakemodel.Request) fakemodel.Reply { got <- r; return fakemodel.Reply{Text: "pong"} })
			f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k","models":[{"id":"m1"},{"id":"m2"}]}}}`, fake.URL))
			f.add("proj", "proj", true)
			s := f.run(size.w, size.h)
			const bar = "model: fake/m1 (first in models.json)"
			s.waitScreen("› proj", bar)
			s.keys("3")
			frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Default model         fake/m1") })
			if want := "fake/m1 — settings.json names no default, so prompts use the first model that has a key (the first in models.json); enter chooses a default"; !strings.Contains(prose(frame), want) {
				t.Errorf("Settings does not say %q:\n%s", want, frame)
			}
			if !strings.Contains(frame, bar) || strings.Contains(frame, "no model") {
				t.Errorf("the status bar on Settings:\n%s", frame)
			}
			s.keys("1", "enter", "o")
			s.waitFor("No sessions yet")
			s.keys("n")
			s.waitFor("Type a message")
			s.tm.Type("hi")
			s.keys("enter")
			s.waitFor("pong")
			if r := <-got; r.Body["model"] != "m1" {
				t.Errorf("the prompt ran %v", r.Body["model"])
			}
			s.waitScreen("pong", bar)
			s.final()
		})
	}
}

// A built-in provider's key in the environment: the bar names the
// variable, Settings says it is set.
func TestAKeyInTheEnvironmentIsNamedAsTheSource(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["GEMINI_API_KEY"] = "g-key"
	s := f.run(120, 40)
	s.waitScreen("No projects yet", "(key in GEMINI_API_KEY)")
	s.keys("3")
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Default model         google/") })
	if want := "(GEMINI_API_KEY is set in the environment)"; !strings.Contains(prose(frame), want) {
		t.Errorf("Settings does not say %q:\n%s", want, frame)
	}
	s.final()
}

// With nothing usable the status bar still says there is no model and
// points to Settings, which says how to set one up.
func TestNoUsableModelSaysHowToSetOneUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.run(80, 24)
	s.waitScreen("No projects yet", "model: no model (see Settings)")
	s.keys("3")
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, "Default model         no model is configured") })
	for _, want := range []string{"set an API key such as ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY",
		"or add a provider to ~/.pi/agent/models.json"} {
		if !strings.Contains(prose(frame), want) {
			t.Errorf("Settings does not say %q:\n%s", want, frame)
		}
	}
	s.final()
}

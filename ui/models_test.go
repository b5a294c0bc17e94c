package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestSettingsModelPicker: with only a Gemini key the picker lists the
// Gemini models as ready and every other model with the key it needs;
// choosing one writes settings.json, keeping its other keys.
func TestSettingsModelPicker(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["GEMINI_API_KEY"] = "g-key"
	f.write(".pi/agent/settings.json", `{"theme": "dark"}`)
	s := f.run(120, 40)
	s.waitFor("1 Projects")
	s.keys("3")
	s.waitFor("Default model", "Default thinking      medium")
	s.keys("down", "down", "enter")
	s.waitFor("Ready to use (4)", "google/gemini-3.5-flash", "Need a key", "anthropic/claude-sonnet-5-5  Claude Sonnet 5.5 — needs ANTHROPIC_API_KEY")
	s.keys("down", "enter")
	s.waitFor("default model: google/gemini-3.1-pro-preview")
	if got := f.read(".pi/agent/settings.json"); !strings.Contains(got, `"defaultProvider": "google"`) || !strings.Contains(got, `"defaultModel": "gemini-3.1-pro-preview"`) || !strings.Contains(got, `"theme": "dark"`) {
		t.Errorf("settings.json = %s", got)
	}
	// The default thinking level cycles and is written there too.
	s.keys("down", "enter")
	s.waitFor("default thinking level: high")
	if got := f.read(".pi/agent/settings.json"); !strings.Contains(got, `"defaultThinkingLevel": "high"`) {
		t.Errorf("settings.json = %s", got)
	}
	s.final()
}

// TestBadModelFilesAreShown: a malformed models.json is one sentence with
// the file and the position in the status bar and in Settings; OAuth
// logins pi-tui cannot use are named in Settings.
func TestBadModelFilesAreShown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.write(".pi/agent/models.json", "{\n  \"providers\": {,}\n}")
	f.write(".pi/agent/auth.json", `{"anthropic": {"type": "oauth", "access": "sk-ant-oat-SECRET", "refresh": "r", "expires": 1}}`)
	os.Chmod(filepath.Join(f.home, ".pi/agent/auth.json"), 0o600)
	s := f.run(160, 40)
	s.waitFor("⚠ ~/.pi/agent/models.json is not valid JSON at line 2, column 17")
	s.keys("3")
	s.waitFor("! ~/.pi/agent/models.json is not valid JSON at line 2, column 17",
		"! ~/.pi/agent/auth.json holds an OAuth login for anthropic, which pi-tui cannot use: set ANTHROPIC_API_KEY")
	view := s.final()
	if strings.Contains(view+s.raw.String(), "SECRET") {
		t.Error("auth.json's content reached the screen")
	}
}

// TestSessionThinkingLevel: the chat shows the level in effect; shift+tab
// cycles the model's levels and /thinking sets one; the model gets it;
// the choice is kept in the session, so reopening it keeps the level.
func TestSessionThinkingLevel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	got := make(chan fakemodel.Request, 8)
	fake := fakemodel.New(t, func(_ int, r fakemodel.Request) fakemodel.Reply { got <- r; return fakemodel.Reply{Text: "pong"} })
	f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k",
		"models":[{"id":"m1","reasoning":true,"thinkingLevelMap":{"minimal":null}}]}}}`, fake.URL))
	f.write(".pi/agent/settings.json", `{"defaultProvider":"fake","defaultModel":"m1"}`)
	f.add("proj", "proj", true)
	s := f.run(140, 30)
	s.waitFor("proj")
	s.keys("enter", "o")
	s.waitFor("No sessions yet")
	s.keys("n")
	s.waitFor("Type a message", "thinking medium")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyShiftTab})
	s.waitFor("thinking high: from the next prompt on", "thinking high")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyShiftTab})
	s.waitFor("thinking off: from the next prompt on")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyShiftTab})
	s.waitFor("thinking low: from the next prompt on") // minimal is not one of this model's levels
	s.tm.Type("ping")
	s.keys("enter")
	s.waitFor("pong")
	s.tm.Type("/thinking xhigh")
	s.keys("enter")
	s.waitFor("thinking high (the model has no xhigh)")
	s.tm.Type("again")
	s.keys("enter")
	// The status line may already say so (ping's launch, after the view's
	// background launch with the level then in force): wait for the
	// frame, then for both requests.
	s.waitScreen("runtime launched: thinking level changed")
	first, second := <-got, <-got
	if first.Body["reasoning_effort"] != "low" || second.Body["reasoning_effort"] != "high" || len(fake.Requests()) != 2 {
		t.Fatalf("reasoning_effort = %v then %v", first.Body["reasoning_effort"], second.Body["reasoning_effort"])
	}
	s.final()
	// Another program opens the session from the store: the level stays.
	s = f.run(140, 30)
	s.waitFor("proj")
	s.keys("enter", "o")
	s.waitFor("messages")
	s.keys("enter")
	s.waitFor("pong", "thinking high")
	s.final()
}

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

// The Default model picker never cuts a row: at 80×24 the key a model
// needs was lost at the screen's edge ("— needs GEMINI_API_…", and for a
// long name the whole "needs" part). Walking every model with j, each
// row's id, name and key show whole on the screen, the cursor's row with
// them, and no line is wider than the screen or ends in "…".
func TestModelPickerRowsKeepTheKeyTheyNeed(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {MinWidth, MinHeight}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			models := provider.Load(f.host.Places.AgentDir, func(string) string { return "" }).Models()
			if len(models) < 10 {
				t.Fatalf("the catalogue has %d models", len(models))
			}
			s := settingsAt(t, f, size.w, size.h)
			s.keys("j", "j", "enter")
			s.waitFor("Need a key")
			for i, m := range models {
				if i > 0 {
					s.keys("j")
				}
				cursor := regexp.MustCompile(`(?m)› ` + regexp.QuoteMeta(m.String()) + `( |$)`)
				frame := s.sc.WaitFrame(cursor.MatchString)
				assertFrame(t, frame, size.w, size.h)
				row := m.String()
				if m.Name != m.ID {
					row += "  " + m.Name
				}
				row += " — needs " + m.Need
				if m.Usable || m.Need == "" {
					t.Fatalf("%s is usable with no key set", m)
				}
				if !strings.Contains(squeezed(frame), squeezed(row)) {
					t.Errorf("the row is not whole: %q\n%s", row, frame)
				}
				for _, l := range strings.Split(frame, "\n") {
					if strings.HasSuffix(strings.TrimSpace(l), "…") {
						t.Errorf("a line is cut: %q", l)
					}
				}
			}
			s.final()
		})
	}
}

// /model and /thinking open on the row in use, not the first, and mark
// it as Settings' model picker does, "(current)", once.
func TestPickersOpenOnTheCurrentRow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "pong"} })
	f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k",
		"models":[{"id":"m1"},{"id":"m2","reasoning":true},{"id":"m3"}]}}}`, fake.URL))
	f.write(".pi/agent/settings.json", `{"defaultProvider":"fake","defaultModel":"m2","defaultThinkingLevel":"high"}`)
	f.add("proj", "proj", true)
	s := f.run(120, 30)
	s.waitFor("› proj")
	s.keys("enter", "o")
	s.waitFor("No sessions yet")
	s.keys("n")
	s.waitFor("Type a message", "thinking high")
	s.tm.Type("/model")
	s.keys("enter")
	s.waitScreen("Model for this session", "› 2  fake/m2  (current)", "  1  fake/m1", "  3  fake/m3")
	s.keys("esc")
	s.tm.Type("/thinking")
	s.keys("enter")
	s.waitScreen("Thinking level for this session", "  high  (current)")
	view := s.final()
	if !strings.Contains(view, "│ › 5  high  (current)") {
		t.Fatalf("the thinking menu:\n%s", view)
	}
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "│ ›") && !strings.Contains(l, "high  (current)") {
			t.Errorf("the thinking menu opens on another row than the current one: %q\n%s", l, view)
		}
	}
	if strings.Contains(view, "← current") {
		t.Errorf("the current row is marked two ways:\n%s", view)
	}
}

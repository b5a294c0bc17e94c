package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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

package ui

import (
	"fmt"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// Keys typed right after n, before the new session's chat shows, are the
// chat's: `n` then `/model` and enter at once opens the model picker (it
// went to the list, whose `/` filter took "model" and enter cleared it).
func TestKeysTypedWhileASessionOpensReachItsChat(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fake := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "pong"} })
	f.write(".pi/agent/models.json", fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"k",
		"models":[{"id":"m1"},{"id":"m2"}]}}}`, fake.URL))
	f.write(".pi/agent/settings.json", `{"defaultProvider":"fake","defaultModel":"m2","defaultThinkingLevel":"off"}`)
	f.add("proj", "proj", true)
	s := f.run(120, 30)
	s.waitFor("› proj")
	s.keys("enter", "o")
	s.waitFor("No sessions yet")
	s.tm.Type("n/model")
	s.keys("enter")
	s.waitScreen("Model for this session", "fake/m2  (current)")
}

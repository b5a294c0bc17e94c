package ui

import (
	"fmt"
	"strings"
	"testing"

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

package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

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

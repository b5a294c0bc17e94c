package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// TestSessionTabRoutesByFocus: the tab shows, helps with and sends keys
// to the list until a session opens, then to the chat until ctrl+l goes
// back; a session that cannot be opened leaves the list in front and
// says why.
func TestSessionTabRoutesByFocus(t *testing.T) {
	t.Parallel()
	h, _ := uitest.Host(t)
	p, _, err := h.Projects.Add(t.Context(), t.TempDir(), "alpha", true)
	if err != nil {
		t.Fatal(err)
	}
	md := func(s string, _ int) (string, error) { return s, nil }
	tab := newSessionTab(Options{Host: h}, uitest.UI(), md)
	t.Cleanup(tab.Close)
	tab.SetSize(100, 30)
	key := func(k tea.KeyType) tea.Cmd { return tab.Update(tea.KeyMsg{Type: k}) }
	onList := func(when string) {
		t.Helper()
		if v := tab.View(); !strings.HasPrefix(v, "Sessions · alpha") || tab.CapturesText() || tab.RuntimeState() != "none" {
			t.Fatalf("%s: the list is not in front:\n%s", when, v)
		}
		if help := tab.Help(); len(help) == 0 || help[0][0].Help().Desc != "open session" {
			t.Fatalf("%s: the help is not the list's: %v", when, help)
		}
	}

	tab.Update(tab.Open(p)())
	onList("opened the project")

	// enter on the empty list starts a session; the chat shows it.
	tab.Update(key(tea.KeyEnter)())
	if v := tab.View(); !strings.HasPrefix(v, "Session · alpha") || !strings.Contains(v, "new session") || !tab.CapturesText() {
		t.Fatalf("the new session is not in front:\n%s", v)
	}
	if help := tab.Help(); help[0][0].Help().Desc != "send" {
		t.Fatalf("the help is not the chat's: %v", help)
	}

	// ctrl+l goes back to the list (read again).
	tab.Update(key(tea.KeyCtrlL)())
	onList("left the chat")

	// A session that cannot be read leaves the list in front.
	msg := tab.chat.Open("no-such-session")()
	notice, ok := tab.Update(msg)().(common.NoticeMsg)
	if !ok || !notice.Error {
		t.Fatalf("a failed open says %v", notice)
	}
	onList("a failed open")
}

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

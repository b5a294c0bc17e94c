package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/approvals"
)

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

// Two esc presses in one read arrive as alt+esc: both count, the first
// closing the help and the second the row menu beneath it.
func TestTwoEscInOneReadAreTwoPresses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/shop", "shop", true)
	s := f.run(100, 30)
	s.waitFor("› shop")
	s.keys("enter")
	s.waitFor("Edit AGENTS.md")
	s.keys("?")
	s.waitFor("Keys · ")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyEsc, Alt: true})
	view := s.final()
	if strings.Contains(view, "Keys · ") || strings.Contains(view, "Edit AGENTS.md") {
		t.Errorf("help or menu still open after esc esc:\n%s", view)
	}
}

// Settings shows an approval rule made elsewhere (A in a chat) as soon
// as the tab is shown again, without r.
func TestSettingsReloadsWhenShown(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(120, 40) // the rules on the first screen: Settings' lines wrap
	s.waitFor("› proj")
	s.keys("3")
	s.waitFor("Approval rules")
	s.keys("1")
	s.waitFor("› proj")
	root := filepath.Join(f.home, "proj")
	if err := f.host.Approvals.Add(context.Background(), root, approvals.Rule{Tool: "bash", Pattern: "go vet *"}); err != nil {
		t.Fatal(err)
	}
	s.keys("tab", "tab")
	s.waitFor("go vet *")
	s.final()
}

// esc and ctrl+s in one read (a slow link) arrive as alt+ctrl+s: they are
// esc (back from the entry to the list), then ctrl+s (save).
func TestEscThenCtrlSInOneRead(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("proj", "proj", true)
	s := f.run(100, 30)
	s.waitFor("› proj")
	s.keys("enter")
	s.waitFor("Edit memory")
	s.keys("m")
	s.waitFor("No memory yet")
	s.keys("a")
	s.waitFor("tab title/content")
	s.tm.Type("a note")
	s.waitFor("a note")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlS, Alt: true})
	s.waitFor("saved memory of proj")
	s.final()
}

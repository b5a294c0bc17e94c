package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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

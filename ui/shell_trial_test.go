package ui

import (
	"strings"
	"testing"
)

// With models.json invalid no model can be used, whatever settings.json
// names: the status bar says "no model" beside the warning naming the
// file.
func TestStatusBarSaysNoModelWhenModelsJSONIsInvalid(t *testing.T) {
	f := newFixture(t)
	f.write(".pi/agent/models.json", `{"providers": {`)
	f.write(".pi/agent/settings.json", `{"defaultProvider":"fake","defaultModel":"m1"}`)
	s := f.run(200, 20)
	s.waitFor("models.json", "model: no model")
	if view := s.final(); strings.Contains(view, "fake/m1") {
		t.Errorf("the status bar names the unusable default:\n%s", view)
	}
}

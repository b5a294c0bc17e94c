package ui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pi-tui/pi-tui/core/approvals"
)

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

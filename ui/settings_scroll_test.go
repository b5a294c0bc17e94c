package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pi-tui/pi-tui/core/approvals"
)

// At 80×24 the Settings tab is taller than the screen once a project has
// approval rules. Moving down onto the last rule scrolls it into view
// (under the title, which stays), and home goes back to the first row
// without changing any setting.
func TestSettingsScrollsAt80x24(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.add("src/proj", "proj", true)
	rules := f.host.Approvals
	for i := range 5 {
		if err := rules.Add(context.Background(), f.dir("src/proj"), approvals.Rule{Tool: "bash", Pattern: fmt.Sprintf("make check-%d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := f.host.Preferences(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := f.run(80, 24)
	s.waitFor("proj")
	s.keys("3")
	s.waitFor("Provider guidance in effect", "google-vertex")
	for range 8 + 4 { // past the eight settings and four rules: onto the fifth
		s.keys("down")
	}
	s.waitFor("›   bash   make check-5")
	s.tm.Send(tea.KeyMsg{Type: tea.KeyHome})
	s.waitFor("› Global instructions")
	view := string(plain([]byte(s.final())))
	lines := strings.Split(view, "\n")
	if len(lines) != 24 || !strings.HasPrefix(lines[1], "Settings  enter change") {
		t.Errorf("the title did not stay on top of a 24-line screen:\n%s", view)
	}
	if !strings.Contains(view, "› Global instructions") || strings.Contains(view, "›   bash") {
		t.Errorf("home did not go to the first row:\n%s", view)
	}
	if p, err := f.host.Preferences(context.Background()); err != nil || p != before {
		t.Errorf("home changed a setting: %+v, %v", p, err)
	}
	if strings.Contains(view, "written to") || strings.Contains(view, "permission mode:") {
		t.Errorf("home changed a setting:\n%s", view)
	}
}

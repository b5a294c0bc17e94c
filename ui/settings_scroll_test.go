package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/approvals"
	"github.com/pi-tui/pi-tui/internal/screentest"
)

// settingsCursorRows are what the Settings tab shows under the cursor,
// row by row, with five approval rules of one project: the settings, the
// lines for reading (each provider's guidance, the paths) and the rules.
var settingsCursorRows = []string{
	"› Global instructions", "› Subdirectory context", "› Default model", "› Default thinking",
	"› Permission mode", "› Runtime idle TTL", "› Engine", "› Live pi runtimes",
	"› anthropic ", "› openai ", "› openai-codex ", "› azure-openai-responses ",
	"› google ", "› google-gemini-cli ", "› google-vertex ",
	"› agent dir ", "› data dir ", "› database ",
	"›   bash   make check-1", "›   bash   make check-2", "›   bash   make check-3",
	"›   bash   make check-4", "›   bash   make check-5",
}

// settingsWithRules is a program on the Settings tab, its five approval
// rules below the screen at 80×24.
func settingsWithRules(t *testing.T, w, h int) (*fixture, *session) {
	t.Helper()
	f := newFixture(t)
	f.add("src/proj", "proj", true)
	for i := range 5 {
		if err := f.host.Approvals.Add(context.Background(), f.dir("src/proj"), approvals.Rule{Tool: "bash", Pattern: fmt.Sprintf("make check-%d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	s := f.run(w, h)
	s.waitFor("proj")
	s.keys("3")
	s.waitFor("› Global instructions") // loaded
	return f, s
}

// cursorOnScreen waits for the frame whose cursor row is want and checks
// that it is a whole screen with the tab's title on top: the row is on
// screen, not below it.
func cursorOnScreen(t *testing.T, s *session, h int, want string) string {
	t.Helper()
	frame := s.sc.WaitFrame(func(f string) bool { return strings.Contains(f, want) })
	lines := strings.Split(frame, "\n")
	if len(lines) != h || !strings.HasPrefix(lines[1], "Settings  enter change") {
		t.Fatalf("with %q under the cursor the screen is not %d lines under the title:\n%s", want, h, frame)
	}
	if strings.Count(frame, "›") != 1 {
		t.Errorf("more than one cursor:\n%s", frame)
	}
	return frame
}

// Walking j from the first setting to the last approval rule keeps the
// cursor's row on the screen at every step, at 80×24 and on the smallest
// screen pi-tui draws; d then asks about the rule the user sees, and j
// past the end stays there.
func TestSettingsScrollsAt80x24(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {MinWidth, MinHeight}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f, s := settingsWithRules(t, size.w, size.h)
			cursorOnScreen(t, s, size.h, settingsCursorRows[0])
			for _, want := range settingsCursorRows[1:] {
				s.keys("j")
				cursorOnScreen(t, s, size.h, want)
			}
			s.keys("j") // past the end: it stays
			last := cursorOnScreen(t, s, size.h, settingsCursorRows[len(settingsCursorRows)-1])
			if !strings.Contains(last, "make check-5") {
				t.Fatalf("the last rule is not on screen:\n%s", last)
			}
			s.keys("d")
			asked := s.sc.WaitFrame(func(f string) bool {
				return strings.Contains(string(screentest.Prose([]byte(f))), "Delete the rule bash make check-5 of proj?")
			})
			if !strings.Contains(asked, "Delete approval rule") {
				t.Errorf("d asked something else:\n%s", asked)
			}
			s.keys("n")
			s.sc.WaitFrame(func(f string) bool { return !strings.Contains(f, "Delete approval rule") })
			s.final()
			if rules, err := f.host.Approvals.All(context.Background()); err != nil || len(rules[f.dir("src/proj")]) != 5 {
				t.Errorf("n deleted a rule: %v, %v", rules, err)
			}
		})
	}
}

// home goes to the first row and end to the last, from anywhere and at
// any size: home changes no setting (the permission mode stays), end
// shows the last rule.
func TestSettingsHomeAndEnd(t *testing.T) {
	t.Parallel()
	f, s := settingsWithRules(t, 80, 24)
	before, err := f.host.Preferences(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.keys("j", "j", "j", "j") // on the permission mode, where enter would cycle it
	cursorOnScreen(t, s, 24, "› Permission mode")
	s.keys("end")
	cursorOnScreen(t, s, 24, "›   bash   make check-5")
	s.keys("home")
	frame := cursorOnScreen(t, s, 24, "› Global instructions")
	if !strings.Contains(frame, "Permission mode       ask") {
		t.Errorf("the permission mode changed:\n%s", frame)
	}
	s.keys("j", "j", "j", "j", "home")
	cursorOnScreen(t, s, 24, "› Global instructions")
	s.keys("end")
	cursorOnScreen(t, s, 24, "›   bash   make check-5")
	view := s.final()
	if p, err := f.host.Preferences(context.Background()); err != nil || p != before {
		t.Errorf("home or end changed a setting: %+v, %v", p, err)
	}
	if strings.Contains(view, "written to") || strings.Contains(view, "permission mode:") {
		t.Errorf("home or end changed a setting:\n%s", view)
	}
}

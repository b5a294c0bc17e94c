package ui

import (
	"fmt"
	"strings"
	"testing"
)

// settingsReadRows are the rows under the cursor after the settings with
// no approval rules: each provider's guidance, the paths and "none yet".
var settingsReadRows = []string{
	"› anthropic ", "› openai ", "› openai-codex ", "› azure-openai-responses ",
	"› google ", "› google-gemini-cli ", "› google-vertex ",
	"› agent dir ", "› data dir ", "› database ", "› none yet",
}

// lookingForPi is what the Engine row says until the look for pi ends.
const lookingForPi = "looking for pi"

// unmarked is a frame read across its lines without the cursor's mark.
func unmarked(frame string) string { return squeezed(strings.ReplaceAll(frame, "›", "")) }

// settingsAt is a program on the Settings tab, loaded, with no approval
// rules.
func settingsAt(t *testing.T, f *fixture, w, h int) *session {
	t.Helper()
	s := f.run(w, h)
	s.waitFor("Projects")
	s.keys("3")
	s.waitFor("› Global instructions")
	return s
}

// Everything Settings shows at 120×40 can be brought into view at 80×24
// and on the smallest screen: with no approval rules, end, pgdn and j
// stopped on the last setting, and the paths and "Approval rules … none
// yet" below it could never be seen. Walking j shows every line the big
// screen shows, the cursor on screen at every step; end and pgdn reach
// the last line.
func TestSettingsEveryLineCanBeScrolledTo(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {MinWidth, MinHeight}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			want := settingsLinesAt120x40(t, f)
			s := settingsAt(t, f, size.w, size.h)
			seen := unmarked(cursorOnScreen(t, s, size.h, settingsCursorRows[0]))
			rows := append(append([]string{}, settingsCursorRows[1:8]...), settingsReadRows...)
			for _, row := range rows {
				s.keys("j")
				// The Engine row says "looking for pi…" until the look ends.
				s.sc.WaitFrame(func(fr string) bool { return strings.Contains(fr, row) && !strings.Contains(fr, lookingForPi) })
				seen += "\n" + unmarked(cursorOnScreen(t, s, size.h, row))
			}
			for _, l := range want {
				if !strings.Contains(seen, l) {
					t.Errorf("%q, shown at 120×40, never came into view", l)
				}
			}
			s.keys("home")
			cursorOnScreen(t, s, size.h, settingsCursorRows[0])
			s.keys("end")
			last := unmarked(cursorOnScreen(t, s, size.h, "› none yet"))
			if !strings.Contains(last, "database~/data/pi-tui.db") || !strings.Contains(last, "Approvalrules") {
				t.Errorf("end does not show the paths' end and the approval rules:\n%s", last)
			}
			s.keys("home")
			cursorOnScreen(t, s, size.h, settingsCursorRows[0])
			for range len(rows) {
				s.keys("pgdown")
			}
			cursorOnScreen(t, s, size.h, "› none yet")
			s.final()
		})
	}
}

// settingsLinesAt120x40 are the Settings tab's lines below its title at
// 120×40, where it all fits, read without white space or the cursor.
func settingsLinesAt120x40(t *testing.T, f *fixture) []string {
	t.Helper()
	big := settingsAt(t, f, 120, 40)
	frame := big.sc.WaitFrame(func(fr string) bool {
		return strings.Contains(fr, "none yet") && !strings.Contains(fr, lookingForPi)
	})
	big.final()
	lines := strings.Split(frame, "\n")
	var want []string // above the status bar
	for _, l := range lines[3 : len(lines)-1] {
		if l = unmarked(l); l != "" {
			want = append(want, l)
		}
	}
	if len(want) < 25 || !strings.Contains(strings.Join(want, "\n"), "database~/data/pi-tui.db") {
		t.Fatalf("120×40 does not show the whole tab:\n%s", frame)
	}
	return want
}

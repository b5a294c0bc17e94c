package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/provider"
)

// The Default model picker never cuts a row: at 80×24 the key a model
// needs was lost at the screen's edge ("— needs GEMINI_API_…", and for a
// long name the whole "needs" part). Walking every model with j, each
// row's id, name and key show whole on the screen, the cursor's row with
// them, and no line is wider than the screen or ends in "…".
func TestModelPickerRowsKeepTheKeyTheyNeed(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {MinWidth, MinHeight}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			models := provider.Load(f.host.Places.AgentDir, func(string) string { return "" }).Models()
			if len(models) < 10 {
				t.Fatalf("the catalogue has %d models", len(models))
			}
			s := settingsAt(t, f, size.w, size.h)
			s.keys("j", "j", "enter")
			s.waitFor("Need a key")
			for i, m := range models {
				if i > 0 {
					s.keys("j")
				}
				cursor := regexp.MustCompile(`(?m)› ` + regexp.QuoteMeta(m.String()) + `( |$)`)
				frame := s.sc.WaitFrame(cursor.MatchString)
				assertFrame(t, frame, size.w, size.h)
				row := m.String()
				if m.Name != m.ID {
					row += "  " + m.Name
				}
				row += " — needs " + m.Need
				if m.Usable || m.Need == "" {
					t.Fatalf("%s is usable with no key set", m)
				}
				if !strings.Contains(squeezed(frame), squeezed(row)) {
					t.Errorf("the row is not whole: %q\n%s", row, frame)
				}
				for _, l := range strings.Split(frame, "\n") {
					if strings.HasSuffix(strings.TrimSpace(l), "…") {
						t.Errorf("a line is cut: %q", l)
					}
				}
			}
			s.final()
		})
	}
}

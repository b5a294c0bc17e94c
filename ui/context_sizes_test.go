package ui

import (
	"regexp"
	"strings"
	"testing"
)

// /context writes every size as the first line does, digits grouped
// ("2,304 bytes", never "1445 bytes" beside it), at 80×24 and 120×40.
func TestContextSizesGroupDigits(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(itoa(size.w)+"x"+itoa(size.h), func(t *testing.T) {
			t.Parallel()
			r := newKitRig(t, size.w, size.h, echoModel, true)
			r.chat()
			r.command("/context", "System prompt for", "environment")
			view := r.final()
			if ungrouped := regexp.MustCompile(`\d{4,} bytes?\b`).FindAllString(view, -1); len(ungrouped) > 0 {
				t.Errorf("sizes without grouped digits: %q\n%s", ungrouped, view)
			}
			// The base prompt is over a thousand bytes: its row shows the
			// grouping, not only the first line.
			base := regexp.MustCompile(`base +\d{1,3}(,\d{3})+ bytes`)
			if !base.MatchString(view) || !strings.Contains(view, "System prompt for") {
				t.Errorf("the base row does not group its digits:\n%s", view)
			}
		})
	}
}

package diffview

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// Lines numbers the old and new lines from each hunk's start, and shows a
// control in the text instead of sending it.
func TestLinesNumberAndShowControls(t *testing.T) {
	got := strings.Join(Lines(uitest.UI(), "--- a/x\n+++ b/x\n@@ -3,2 +3,2 @@\n keep\n-old\x1b[8m\n+new\n"), "\n")
	for _, want := range []string{"    3     3  keep", "    4       -old", "          4 +new"} {
		if !strings.Contains(got, want) {
			t.Errorf("the lines lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b[8m") {
		t.Errorf("a control is sent: %q", got)
	}
	if Lines(uitest.UI(), " \n") != nil {
		t.Error("an empty diff has lines")
	}
}

// The page shows the keys its table handles, and only those, and says
// so when the diff is empty.
func TestPage(t *testing.T) {
	p := NewPage(uitest.UI(), "Diff · x", "", "Nothing changed.")
	keytest.Check(t, "diff", p.keys, p.Help())
	if v := p.View(80, 10); !strings.Contains(v, "Diff · x") || !strings.Contains(v, "Nothing changed.") {
		t.Errorf("the empty page:\n%s", v)
	}
}

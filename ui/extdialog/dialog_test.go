package extdialog

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// At 80×24 an extension's long title and message wrap at words inside
// the border: every word, wide runes included, comes out whole, and a
// path longer than a line breaks after a slash.
func TestDialogWrapsAtWords(t *testing.T) {
	path := "/srv/extensions/日本語の拡張機能/with/a/path/that/is/longer/than/one/line/of/the/dialog/config.json"
	q := events.Dialog{Method: MethodConfirm,
		Title:   "The deploy extension asks a question with a title long enough to wrap",
		Message: "Deploy the build described in " + path + " to production now? Everything there is replaced."}
	d := New(uitest.UI(), 1, q, nil)
	view := ansi.Strip(d.View(80, 24))
	var text []string
	for _, l := range strings.Split(view, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("a line is %d wide: %q", ansi.StringWidth(l), l)
		}
		if strings.HasPrefix(l, "│ ") {
			text = append(text, strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "│ "), "│")))
		}
	}
	var b strings.Builder
	for i, l := range text {
		if i > 0 && !strings.HasSuffix(text[i-1], "/") {
			b.WriteString(" ")
		}
		b.WriteString(l)
	}
	for _, want := range []string{q.Title, q.Message} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("%q is not read whole, at words:\n%s", want, view)
		}
	}
}

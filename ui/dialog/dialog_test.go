package dialog

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pi-tui/pi-tui/ui/common"
)

// A prompt whose title and value come from a file or a model (a session
// named with an escape sequence) draws them as text: no control byte
// reaches the terminal.
func TestPromptShowsControlsAsText(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ui := common.NewUI(common.NewStyles(r))
	p := NewPrompt(ui, "Rename \x1b]0;pwned\a", "", "name\x1b[2J\nnext", nil, nil)
	view := p.View(80, 20)
	if strings.ContainsAny(view, "\a") || strings.Contains(view, "\x1b]") || strings.Contains(view, "\x1b[2J") {
		t.Errorf("a control reached the view:\n%q", view)
	}
	if !strings.Contains(view, `\x1b]0;pwned`) || !strings.Contains(view, `name\x1b[2J⏎next`) {
		t.Errorf("the controls are not shown as text:\n%q", view)
	}
}

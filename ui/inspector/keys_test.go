package inspector

import (
	"io"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/core/runtime"
	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The context page shows the keys its table handles, and only those.
func TestInspectorKeysAreData(t *testing.T) {
	p := New(common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))), runtime.Inspection{})
	keytest.Check(t, "context", p.keys, p.Help())
}

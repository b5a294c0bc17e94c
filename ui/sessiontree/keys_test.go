package sessiontree

import (
	"io"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/pi-tui/pi-tui/ui/common"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The tree page shows the keys its table handles, and only those.
func TestTreeKeysAreData(t *testing.T) {
	p := New(common.NewUI(common.NewStyles(lipgloss.NewRenderer(io.Discard))), false, nil, "", nil, nil, nil)
	keytest.Check(t, "tree", p.keys, p.Help())
}

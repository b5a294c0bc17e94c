package sessiontree

import (
	"testing"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// The tree page shows the keys its table handles, and only those.
func TestTreeKeysAreData(t *testing.T) {
	p := New(uitest.UI(), false, nil, "", nil, nil, nil)
	keytest.Check(t, "tree", p.keys, p.Help())
}

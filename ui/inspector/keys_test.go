package inspector

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// The context page shows the keys its table handles, and only those.
func TestInspectorKeysAreData(t *testing.T) {
	p := New(uitest.UI(), runtimes.Inspection{})
	keytest.Check(t, "context", p.keys, p.Help())
}

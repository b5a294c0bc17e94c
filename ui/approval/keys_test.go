package approval

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// The approval dialog shows every answer key it takes.
func TestDialogKeysAreData(t *testing.T) {
	d := newDialog(uitest.UI(), &Ask{req: events.Approval{Tool: "bash", Command: "ls"}}, "p", nil)
	keytest.Check(t, "approval", d.keys, d.Help())
}

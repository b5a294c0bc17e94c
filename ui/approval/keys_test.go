package approval

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/agent"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The approval dialog shows every answer key it takes.
func TestDialogKeysAreData(t *testing.T) {
	d := newDialog(testUI(), &Ask{req: agent.Approval{Tool: "bash", Command: "ls"}}, "p", nil)
	keytest.Check(t, "approval", d.keys, d.Help())
}

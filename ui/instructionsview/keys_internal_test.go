package instructionsview

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The instructions page's help is its key table.
func TestKeysAreData(t *testing.T) {
	pg := New(nil, nil, nil, registry.Project{})
	keytest.Check(t, "instructions", pg.keys, pg.Help())
}

package memoryeditor

import (
	"testing"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The memory editor's help is its key table.
func TestKeysAreData(t *testing.T) {
	p := &Page{keys: defaultKeys()}
	keytest.Check(t, "memory editor", p.keys, p.Help())
}

package settings

import (
	"testing"

	"github.com/pi-tui/pi-tui/ui/internal/keytest"
)

// The Settings tab's and the model picker's help are their key tables.
func TestKeysAreData(t *testing.T) {
	m := New(nil, nil, nil, nil, nil)
	p := &modelPicker{keys: newPickerKeys()}
	keytest.Check(t, "settings", m.keys, m.Help())
	keytest.Check(t, "model picker", p.keys, p.Help())
}

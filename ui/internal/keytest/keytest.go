// Package keytest holds screens to their key tables in tests: a screen's
// help must show every key its table handles, and only those.
package keytest

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"github.com/pi-tui/pi-tui/ui/common"
)

// Check fails t when screen's help and its key table disagree: a key the
// table handles that help does not show, or a key help shows that the
// table does not handle.
func Check(t testing.TB, screen string, table any, help [][]key.Binding) {
	t.Helper()
	notShown, notInTable := common.KeyCoverage(table, help)
	if len(notShown) > 0 {
		t.Errorf("%s: bound but not shown: %v", screen, notShown)
	}
	if len(notInTable) > 0 {
		t.Errorf("%s: shown but not bound: %v", screen, notInTable)
	}
}

package inspector

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/ui/internal/uitest"
)

// In plan mode the section list names the section plan mode adds, with
// its size; out of it there is no such row.
func TestInspectorListsThePlanSection(t *testing.T) {
	off := New(uitest.UI(), runtimes.Inspection{Model: "fake/m1"}).View(100, 30)
	if strings.Contains(off, "plan mode") {
		t.Errorf("a plan-mode row out of plan mode:\n%s", off)
	}
	on := New(uitest.UI(), runtimes.Inspection{Model: "fake/m1", Plan: entries.PlanPrompt}).View(100, 30)
	if !strings.Contains(on, "plan mode") || !strings.Contains(on, "bytes") {
		t.Errorf("no plan-mode row in plan mode:\n%s", on)
	}
}

package toolpolicy

import (
	"testing"

	"github.com/pi-tui/pi-tui/core/entries"
)

// A call refused without anybody being asked (a headless run) reads as
// that sentence, never as a person's no: the transcript does not take it
// for a denial.
func TestUnaskedIsNoDenial(t *testing.T) {
	const unasked = "This bash call needs approval, and nobody was asked."
	text := deniedText("bash", &DeniedError{Unasked: unasked})
	if text != unasked {
		t.Errorf("deniedText = %q, want the unasked sentence", text)
	}
	if _, denied := entries.DeniedReason("bash", text); denied {
		t.Error("an unasked refusal reads as the user's denial")
	}
	if reason, denied := entries.DeniedReason("write", deniedText("write", &DeniedError{Reason: " not on main "})); !denied || reason != "not on main" {
		t.Errorf("a person's no with a reason reads back as %q, %v", reason, denied)
	}
}

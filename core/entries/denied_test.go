package entries

import (
	"testing"
)

// DeniedReason reads back what DeniedText told the model, for every kind
// of no, and takes no other result for a denial.
func TestDeniedReasonReadsDeniedText(t *testing.T) {
	for _, c := range []struct {
		name, tool, text, reason string
		denied                   bool
	}{
		{"with a reason", "write", DeniedText("write", "  not on main \n"), "not on main", true},
		{"a plain no", "bash", DeniedText("bash", ""), "", true},
		{"an empty reason", "edit", DeniedText("edit", " "), "", true},
		{"another tool's denial", "read", DeniedText("write", "no"), "", false},
		{"a failure", "read", "Error: open missing.txt: permission denied", "", false},
	} {
		reason, denied := DeniedReason(c.tool, c.text)
		if reason != c.reason || denied != c.denied {
			t.Errorf("%s: DeniedReason(%q, %q) = %q, %v; want %q, %v", c.name, c.tool, c.text, reason, denied, c.reason, c.denied)
		}
	}
}

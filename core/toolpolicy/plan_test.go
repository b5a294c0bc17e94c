package toolpolicy

import "testing"

func TestPlanAllows(t *testing.T) {
	for _, c := range []struct {
		tool     string
		readOnly bool
		want     bool
	}{
		{"read", false, true}, {"ls", false, true}, {"grep", false, true}, {"find", false, true},
		{"write", false, false}, {"edit", true, false}, {"bash", true, false}, {"remember", true, false},
		{"mcp__docs__search", true, true}, {"deploy", false, false}, {"codemode", false, false},
	} {
		if got := PlanAllows(c.tool, c.readOnly); got != c.want {
			t.Errorf("PlanAllows(%q, %v) = %v", c.tool, c.readOnly, got)
		}
	}
}

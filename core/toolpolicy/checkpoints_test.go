package toolpolicy

import (
	"slices"
	"testing"
)

func TestCheckpointPaths(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tool, canon string
		paths       []string
		ok          bool
	}{
		{"write", "/p/a", []string{"/p/a"}, true},
		{"edit", "/p/a", []string{"/p/a"}, true},
		{"write", "", nil, false}, // refused by confinement, and the tool with it
		{"bash", "", nil, true},
		{"codemode", "", nil, true},
		{"mcp_github_push", "", nil, true},
		{"read", "/p/a", nil, false},
		{"ls", "/p", nil, false},
		{"grep", "/p", nil, false},
		{"find", "/p", nil, false},
		{ToolRemember, "", nil, false},
	} {
		if paths, ok := CheckpointPaths(c.tool, c.canon); ok != c.ok || !slices.Equal(paths, c.paths) {
			t.Errorf("CheckpointPaths(%q, %q) = %v, %v; want %v, %v", c.tool, c.canon, paths, ok, c.paths, c.ok)
		}
	}
}

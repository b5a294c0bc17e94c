package providers

import (
	"strings"
	"testing"
)

// A provider's and an MCP server's name are held to pi's rules: the
// letters each may hold, at most 64 of them.
func TestNamesAsPiTakesThem(t *testing.T) {
	for name, ok := range map[string]bool{
		"lab": true, "a.b_c-9": true, "9lab": true, strings.Repeat("a", 64): true,
		"": false, ".lab": false, "-lab": false, "lab/x": false, "lab x": false, strings.Repeat("a", 65): false, "lab\n": false,
	} {
		if err := CheckName(name); (err == nil) != ok {
			t.Errorf("provider name %q: %v", name, err)
		}
	}
	for name, ok := range map[string]bool{
		"fs": true, "-fs_2": true, strings.Repeat("m", 64): true,
		"": false, "a.b": false, "fs x": false, strings.Repeat("m", 65): false, "fs\n": false,
	} {
		if err := CheckMCPName(name); (err == nil) != ok {
			t.Errorf("MCP server name %q: %v", name, err)
		} else if err != nil && !strings.Contains(err.Error(), "at most 64") {
			t.Errorf("MCP server name %q: the refusal does not give the length: %v", name, err)
		}
	}
}

package checkpoints

import (
	"path/filepath"
	"strings"
	"testing"
)

// A session's journal folder is named after its id when the id is a plain
// name (1 to 128 of A-Z a-z 0-9 . _ -, not starting with a dot), and after
// a hash of it otherwise: an id comes from files pi-tui does not control.
func TestSessionFolderNames(t *testing.T) {
	s := Open(t.TempDir(), Limits{})
	for id, plain := range map[string]bool{
		"s1": true, "019a2b3c-4d5e": true, "a.b_c-D": true, "_x": true, "-x": true, strings.Repeat("a", 128): true,
		"": false, ".hidden": false, "..": false, "a/b": false, `a\b`: false, "a b": false, "é": false,
		strings.Repeat("a", 129): false, "a\x00b": false,
	} {
		name := filepath.Base(s.sessionDir(id))
		if plain && name != id || !plain && (name == id || !strings.HasPrefix(name, "x-")) {
			t.Errorf("id %q: folder %q", id, name)
		}
	}
}

package bridge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A path pi would read elsewhere than pi-tui confined it is refused before
// pi gets it: "~", "@", file: URLs, Unicode spaces, and a read of a
// missing name whose look-alike (a link the repository planted) pi would
// open instead. In full-auto nothing would ask, so confinement is all
// that stands between the model and the home folder.
func TestPathsPiReadsDifferentlyAreRefused(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("SECRET"), 0o600)
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("ok"), 0o644)
	// The planted look-alike: ’ (U+2019) where the model writes '.
	if err := os.Symlink(outside, filepath.Join(root, "notes\u2019s.txt")); err != nil {
		t.Fatal(err)
	}
	d := NewDecisions(Deps{Root: root, Permission: "full-auto"})
	call := func(tool, path string) ToolCallResult {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"path": path, "content": "x"})
		r, err := d.ToolCall(context.Background(), ToolCallRequest{ToolCallID: "c-" + path, ToolName: tool, Input: in})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct{ tool, path, why string }{
		{"read", "~/.ssh/id_rsa", `starting with "~"`},
		{"grep", "~", `starting with "~"`},
		{"write", "~/.bashrc", `starting with "~"`},
		{"read", "@/etc/passwd", `starting with "@"`},
		{"write", "@.git/hooks/pre-commit", `starting with "@"`},
		{"read", "file:///etc/passwd", "file: URL"},
		{"read", "notes\u00a0.txt", "Unicode space"},
		{"read", "notes's.txt", "does not exist"},
	} {
		r := call(c.tool, c.path)
		if !r.Block || !strings.Contains(r.Reason, c.why) {
			t.Errorf("%s %q: %+v, want blocked for %s", c.tool, c.path, r, c.why)
		}
	}
	if r := call("read", "notes.txt"); r.Block {
		t.Errorf("a plain read was blocked: %s", r.Reason)
	}
	if r := call("write", "new/file.txt"); r.Block {
		t.Errorf("a write of a new file was blocked: %s", r.Reason)
	}
}

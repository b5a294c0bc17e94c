package bridge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// In a project of two folders the host lets pi's read of web:app.ts run
// with the canonical path for pi's tool (pi does not know NAME:path) and
// notes the folder once; a path of the root is left as written; a link
// in web leading into the root, and anything in a folder gone from disk,
// are blocked.
func TestToolCallInAnotherFolder(t *testing.T) {
	api, _ := filepath.EvalSymlinks(t.TempDir())
	web, _ := filepath.EvalSymlinks(t.TempDir())
	gone := filepath.Join(t.TempDir(), "gone")
	os.WriteFile(filepath.Join(web, "app.ts"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(api, "main.go"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(api, "main.go"), filepath.Join(web, "cross.go"))
	var noted []string
	d := NewDecisions(Deps{Root: api, Permission: toolpolicy.PermissionFullAuto,
		Folders: confine.Folders{{Name: "api", Root: api}, {Name: "web", Root: web}, {Name: "gone", Root: gone}},
		Reached: func(f confine.Folder) { noted = append(noted, f.Name) }})
	defer d.Close()
	call := func(tool, path string) ToolCallResult {
		in, _ := json.Marshal(map[string]string{"path": path, "content": "y"})
		res, err := d.ToolCall(context.Background(), ToolCallRequest{ToolCallID: "c-" + path, ToolName: tool, Input: in})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := call("read", "web:app.ts"); r.Block || r.Path != filepath.Join(web, "app.ts") {
		t.Errorf("read web:app.ts = %+v, want it run on %s", r, filepath.Join(web, "app.ts"))
	}
	if r := call("read", filepath.Join(web, "app.ts")); r.Block || r.Path != filepath.Join(web, "app.ts") {
		t.Errorf("read by absolute path = %+v", r)
	}
	if r := call("read", "main.go"); r.Block || r.Path != "" {
		t.Errorf("read main.go = %+v, want it run as written", r)
	}
	if r := call("read", "web:cross.go"); !r.Block || !strings.Contains(r.Reason, "outside folder") {
		t.Errorf("read of a link from web into the root = %+v, want it blocked", r)
	}
	if r := call("write", "gone:new.txt"); !r.Block || !strings.Contains(r.Reason, "missing from disk") {
		t.Errorf("write in a folder gone from disk = %+v, want it blocked", r)
	}
	if strings.Join(noted, ",") != "web" {
		t.Errorf("noted %v, want web once", noted)
	}
}

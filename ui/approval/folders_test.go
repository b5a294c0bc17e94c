package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
)

// An edit of a file in another folder of the project (web:f.txt) is
// previewed against that file, read in its folder, not refused as outside
// the session's root.
func TestPreviewInAnotherFolder(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	web, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(web, "f.txt"), []byte("alpha\nbeta\n"), 0o644)
	args, _ := json.Marshal(map[string]string{"path": "web:f.txt", "oldText": "beta", "newText": "gamma"})
	got := diffFor(root, events.Approval{Tool: "edit", Path: "web:f.txt", Folder: "web", FolderRoot: web, Args: args}).String()
	if !strings.Contains(got, "- beta") || !strings.Contains(got, "+ gamma") {
		t.Errorf("the preview of web:f.txt:\n%s", got)
	}
}

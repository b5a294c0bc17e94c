package projects

import (
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/registry"
)

// A folder's path comes from the file system: one holding an escape or a
// line break is shown as text in the folder menus, never sent to the
// terminal to act on.
func TestFolderMenuShowsAHostilePathAsText(t *testing.T) {
	p := registry.Project{Name: "shop", Folders: []registry.Folder{
		{Name: "api", Path: "/src/api", Primary: true},
		{Name: "web", Path: "/src/we\x1b[2Jb\nX"},
	}}
	for _, it := range folderItems(p, "/home/u", func(registry.Folder) bool { return false }, "AGENTS.md", nil) {
		desc := it.Key.Help().Desc
		if strings.ContainsAny(desc, "\x1b\n") {
			t.Errorf("a menu item holds a control character: %q", desc)
		}
	}
}

package instructionsview_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/host"
	"github.com/pi-tui/pi-tui/core/registry"
)

// In a project of several folders, the page explains a path in another
// folder, written NAME:path as @ completion writes it: that folder's own
// chain when it is trusted, and for an untrusted one the global files
// alone, saying why; a path in the primary root still gets the root's.
func TestShowInstructionsForAPathInAnotherFolder(t *testing.T) {
	pl := places(t)
	home := pl.Home
	root, web, ops := filepath.Join(home, "api"), filepath.Join(home, "web"), filepath.Join(home, "ops")
	write(t, filepath.Join(root, "AGENTS.md"), "Api rules.")
	write(t, filepath.Join(web, "AGENTS.md"), "Web rules.")
	write(t, filepath.Join(web, "src", "AGENTS.md"), "Web src rules.")
	write(t, filepath.Join(ops, "AGENTS.md"), "Ops rules.")
	s := openPage(t, pl, root, "api", 160, 40, func(ctx context.Context, h *host.Host, p registry.Project) error {
		if _, err := h.Projects.AddFolder(ctx, p.ID, web, "", true, registry.FolderOptions{}); err != nil {
			return err
		}
		_, err := h.Projects.AddFolder(ctx, p.ID, ops, "", false, registry.FolderOptions{})
		return err
	})
	s.Keys("/")
	s.TM.Type("web:src/app.ts")
	s.Keys("enter")
	s.WaitScreen(`"web:AGENTS.md"`, `"web:src/AGENTS.md"`, `"web:src/app.ts" is in folder "web": this is that folder's own chain`)
	s.Keys("v")
	s.WaitScreen("Web src rules.")

	s.Keys("v", "/", "ctrl+u")
	s.TM.Type("ops:deploy.sh")
	s.Keys("enter")
	s.WaitScreen(`folder "ops" is untrusted`)
	if v := s.Final(); containsAny(v, "ops:AGENTS.md", "web:AGENTS.md") {
		t.Errorf("an untrusted folder's chain, or the other folder's, is shown:\n%s", v)
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

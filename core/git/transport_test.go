package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// A remote's uploadpack or receivepack in the repository's config is the
// program git runs at the other end of a local or ssh transport (on this
// machine for a local one). A -c override cannot replace it (git keeps
// the first value), so such a repository fetches and pushes over neither:
// whichever the user's config allows, the program does not run.
func TestRemoteUploadPackDoesNotRun(t *testing.T) {
	for _, tc := range []struct {
		name, user, url string
	}{
		{"file", "[protocol \"file\"]\n\tallow = always\n", ""},
		{"ssh", "", "ssh://example.invalid"}, // the user's ssh, below
	} {
		t.Run(tc.name, func(t *testing.T) {
			worktreetest.Need(t)
			base := t.TempDir()
			up, dir, marks := filepath.Join(base, "up"), filepath.Join(base, "repo"), filepath.Join(base, "marks")
			os.MkdirAll(marks, 0o755)
			worktreetest.Repo(t, up, map[string]string{"a": "a\n"})
			worktreetest.Repo(t, dir, map[string]string{"b": "b\n"})
			prog := func(name, then string) string {
				p := filepath.Join(base, name)
				os.WriteFile(p, []byte("#!/bin/sh\ntouch '"+filepath.Join(marks, name)+"'\nexec "+then+" \"$@\"\n"), 0o755)
				return p
			}
			user := tc.user
			if tc.name == "ssh" {
				// The user's own ssh: runs the remote command here.
				ssh := filepath.Join(base, "fake-ssh")
				os.WriteFile(ssh, []byte("#!/bin/sh\nfor a; do last=$a; done\nexec sh -c \"$last\"\n"), 0o755)
				user = "[core]\n\tsshCommand = " + ssh + "\n"
			}
			global := filepath.Join(base, "gitconfig")
			os.WriteFile(global, []byte(user), 0o644)
			worktreetest.Git(t, dir, "config", "remote.origin.url", tc.url+up)
			worktreetest.Git(t, dir, "config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*")
			worktreetest.Git(t, dir, "config", "remote.origin.uploadpack", prog("uploadpack", "git-upload-pack"))
			worktreetest.Git(t, dir, "config", "remote.origin.receivepack", prog("receivepack", "git-receive-pack"))
			g := find(t, map[string]string{"GIT_CONFIG_GLOBAL": global})
			ctx := context.Background()
			if _, err := g.Run(ctx, dir, "fetch", "origin"); err == nil || !strings.Contains(err.Error(), "remote.origin.uploadpack") {
				t.Errorf("the fetch: %v", err)
			}
			if _, err := g.Run(ctx, dir, "push", "origin", "main:refs/heads/pushed"); err == nil {
				t.Error("the push went through")
			}
			ws, err := g.Withheld(ctx, dir)
			if err != nil || len(ws) != 2 {
				t.Errorf("withheld: %v %v", ws, err)
			}
			worktreetest.NoMarks(t, marks)
		})
	}
}

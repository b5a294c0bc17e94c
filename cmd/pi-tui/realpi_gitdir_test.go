package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// gitDirPieces are the writes issue 28 reports a model making in
// auto-edits without approval, in its order: a common dir whose config
// names a pager (it would leave pwned-pager in the project), its objects/
// and refs/, and newrepo/, whose HEAD and commondir make it a git
// directory reading that config.
func gitDirPieces(root string) [][2]string {
	return [][2]string{
		{"bare2/config", fmt.Sprintf("[core]\n\tbare = false\n\tworktree = %s\n\tpager = \"touch '%s'; cat\"\n", filepath.Join(root, "wt"), filepath.Join(root, "pwned-pager"))},
		{"bare2/objects/info/.keep", ""},
		{"bare2/refs/heads/.keep", ""},
		{"newrepo/HEAD", "ref: refs/heads/main\n"},
		{"newrepo/commondir", "../bare2\n"},
	}
}

// onePieceATurn writes the pieces one a turn, in order (the k-th call's
// ID is gitpiece<k>, so the next is the first the conversation lacks),
// then answers "done".
func onePieceATurn(root string) fakemodel.Script {
	pieces := gitDirPieces(root)
	return func(_ int, req fakemodel.Request) fakemodel.Reply {
		for k, p := range pieces {
			id := fmt.Sprintf("gitpiece%d", k+1)
			if !strings.Contains(req.Raw, id) {
				return fakemodel.Reply{Calls: []fakemodel.Call{{ID: id, Name: "write", Args: map[string]string{"path": p[0], "content": p[1]}}}}
			}
		}
		return fakemodel.Reply{Text: "done"}
	}
}

// assembledRepoDenied runs the writes headless in auto-edits
// without --yes on engine: the four that make no repository are written,
// the fifth is denied (exit 3, the model told), so newrepo/ never gets
// its commondir.
func assembledRepoDenied(t *testing.T, c *cli, engine string, fake *fakemodel.Server, root string) {
	t.Helper()
	permissionMode(t, c, "auto-edits")
	code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", engine, "--json", "assemble")
	if code != exitDenied || !strings.Contains(errs, "write") {
		t.Fatalf("%s: exit %d, stderr %q; want 3 naming the denied write", engine, code, errs)
	}
	if l := typed(jsonLines(t, out), "runtime_launched"); len(l) != 1 || l[0]["engine"] != engine {
		t.Errorf("launch = %v", l)
	}
	for _, p := range gitDirPieces(root)[:4] {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p[0]))); err != nil {
			t.Errorf("%s: %s was not written: %v", engine, p[0], err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "newrepo", "commondir")); err == nil {
		t.Errorf("%s: newrepo/commondir was written without approval", engine)
	}
	if res := lastResult(fake); !strings.Contains(res, "needs approval") {
		t.Errorf("%s: the model was not told of the denial: %q", engine, res)
	}
}

// The built-in engine denies the write that completes the git directory.
func TestAssembledGitDirectoryDeniedBuiltin(t *testing.T) {
	c := newCLI(t)
	root := filepath.Join(c.env["HOME"], "mono")
	fake, root := modelRig(t, c, onePieceATurn(root))
	assembledRepoDenied(t, c, "builtin", fake, root)
}

// The real pi, through the bridge, denies it alike.
func TestRealPiAssembledGitDirectoryDenied(t *testing.T) {
	c := realPiCLI(t)
	root := filepath.Join(c.env["HOME"], "mono")
	fake, root := realPiProject(t, c, true, onePieceATurn(root))
	assembledRepoDenied(t, c, "pi", fake, root)
}

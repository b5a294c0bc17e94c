package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
)

// In a project of two folders, ls, grep and find in the second print its
// files as NAME:path, the form the tools take back; write and edit there
// say so too.
func TestToolsInAnotherFolder(t *testing.T) {
	api, _ := filepath.EvalSymlinks(t.TempDir())
	web, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(web, "src"), 0o755)
	os.WriteFile(filepath.Join(web, "src", "app.ts"), []byte("export const APP = 1;\n"), 0o644)
	env := toolEnv{root: api, folders: confine.Folders{{Name: "api", Root: api}, {Name: "web", Root: web}}}
	run := func(tool string, args map[string]string) ToolResult {
		raw, _ := json.Marshal(args)
		return env.run(context.Background(), ToolCall{ID: "c", Name: tool, Args: raw})
	}
	for _, c := range []struct {
		tool string
		args map[string]string
		want string
	}{
		{"grep", map[string]string{"pattern": "APP", "path": "web:"}, "web:src/app.ts:1:"},
		{"find", map[string]string{"pattern": "*.ts", "path": "web:src"}, "web:src/app.ts"},
		{"ls", map[string]string{"path": "web:src"}, "app.ts"},
		{"write", map[string]string{"path": "web:src/new.ts", "content": "x"}, "Wrote 1 bytes to web:src/new.ts."},
		{"edit", map[string]string{"path": "web:src/new.ts", "oldText": "x", "newText": "y"}, "Edited web:src/new.ts."},
		{"read", map[string]string{"path": "web:src/new.ts"}, "y"},
	} {
		res := run(c.tool, c.args)
		if res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s %v = %q (error %v), want %q in it", c.tool, c.args, res.Text, res.IsError, c.want)
		}
	}
	if res := run("read", map[string]string{"path": "src/app.ts"}); !res.IsError {
		t.Errorf("a relative path read the second folder's file: %q", res.Text)
	}
}

// Reach tells its host of each other folder once, and of the root never.
func TestReachOncePerFolder(t *testing.T) {
	var told []string
	r := toolpolicy.NewReach(func(f confine.Folder) { told = append(told, f.Name) })
	web := confine.Place{Folder: confine.Folder{Name: "web", Root: "/w"}, Index: 1}
	r.Note(web)
	r.Note(web)
	r.Note(confine.Place{Folder: confine.Folder{Name: "api", Root: "/a"}})
	if strings.Join(told, ",") != "web" {
		t.Errorf("told %v, want web once", told)
	}
}

// A file that runs on use is judged in its own folder: in a second
// folder that is a git repository, its .git/config and its core.hooksPath
// ask in auto-edits, as the root's would; an ordinary file there does not.
func TestRunOnUseInAnotherFolder(t *testing.T) {
	api, _ := filepath.EvalSymlinks(t.TempDir())
	web, _ := filepath.EvalSymlinks(t.TempDir())
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", web}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("config", "core.hooksPath", "tools/hooks")
	folders := confine.Folders{{Name: "api", Root: api}, {Name: "web", Root: web}}
	for target, asks := range map[string]bool{"web:.git/config": true, "web:tools/hooks/pre-commit": true, filepath.Join(web, ".git", "HEAD"): true, "web:src/app.ts": false} {
		need, why, _ := toolpolicy.NeedsApprovalIn(folders, toolpolicy.PermissionAutoEdits, "write", target)
		if need != asks || (why != "") != asks {
			t.Errorf("write %s in auto-edits: need %v, %q; want asking %v", target, need, why, asks)
		}
	}
}

// One checkout's config can name files in another folder of the project:
// the primary root's core.hooksPath and include.path point into web, so
// a write there asks in auto-edits (as NAME:path and by its path), and
// the write tool itself refuses it unapproved.
func TestRunOnUseNamedByAnotherFoldersRepository(t *testing.T) {
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	api, web := filepath.Join(parent, "api"), filepath.Join(parent, "web")
	for _, d := range []string{api, web} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "core.hooksPath", "../web/hooks"}, {"config", "include.path", "../../web/git.cfg"}} {
		if out, err := exec.Command("git", append([]string{"-C", api}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	folders := confine.Folders{{Name: "api", Root: api}, {Name: "web", Root: web}}
	for target, asks := range map[string]bool{"web:hooks/pre-commit": true, filepath.Join(web, "hooks", "pre-commit"): true, "web:git.cfg": true, "web:src/app.ts": false} {
		need, why, _ := toolpolicy.NeedsApprovalIn(folders, toolpolicy.PermissionAutoEdits, "write", target)
		if need != asks || (why != "") != asks {
			t.Errorf("write %s in auto-edits: need %v, %q; want asking %v", target, need, why, asks)
		}
	}
	env := toolEnv{root: api, folders: folders}
	raw, _ := json.Marshal(map[string]string{"path": "web:hooks/pre-commit", "content": "#!/bin/sh\necho ran\n"})
	res := env.run(context.Background(), ToolCall{ID: "c", Name: "write", Args: raw})
	if !res.IsError || !strings.Contains(res.Text, "needs the user's approval") {
		t.Errorf("an unapproved write of api's hook in web = %q", res.Text)
	}
	if _, err := os.Stat(filepath.Join(web, "hooks", "pre-commit")); err == nil {
		t.Error("the hook was written")
	}
}

// A folder gone from disk is no way out: a call there says the folder is
// missing, and writes nothing anywhere (the folder is not made again).
func TestMissingFolder(t *testing.T) {
	api, _ := filepath.EvalSymlinks(t.TempDir())
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	web := filepath.Join(parent, "web")
	env := toolEnv{root: api, folders: confine.Folders{{Name: "api", Root: api}, {Name: "web", Root: web}}}
	raw, _ := json.Marshal(map[string]string{"path": "web:x.txt", "content": "x"})
	res := env.run(context.Background(), ToolCall{ID: "c", Name: "write", Args: raw})
	if !res.IsError || !strings.Contains(res.Text, `folder "web"`) || !strings.Contains(res.Text, "missing from disk") {
		t.Errorf("a write in a missing folder = %q", res.Text)
	}
	if _, err := os.Stat(web); err == nil {
		t.Error("the write made the missing folder")
	}
}

package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// includeRepo makes a real repository whose .git/config includes a
// tracked file, devtools/git.cfg, that moves the hooks to tools/hooks, and
// a linked worktree of it. git itself is asked where the hooks are, so
// the test fails if the layout stops meaning what the guard is tested on.
func includeRepo(t *testing.T) (main, wt string) {
	t.Helper()
	worktreetest.Need(t)
	base := tempRoot(t)
	main, wt = filepath.Join(base, "main"), filepath.Join(base, "wt")
	worktreetest.Repo(t, main, map[string]string{
		"devtools/git.cfg":       "[core]\n\thooksPath = tools/hooks\n",
		"tools/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
		"src/a.go":               "package src\n",
	})
	worktreetest.Git(t, main, "config", "include.path", "../devtools/git.cfg")
	worktreetest.Git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	for _, root := range []string{main, wt} {
		if got := strings.TrimSpace(worktreetest.Git(t, root, "config", "core.hooksPath")); got != "tools/hooks" {
			t.Fatalf("%s: git reads core.hooksPath = %q through the include", root, got)
		}
	}
	return main, wt
}

// The three writes the security review found going through in
// auto-edits mode, in the main checkout and in a linked worktree: the
// included config file itself, a hook in the folder that included file
// names, and a hook in a folder named by a continued line.
func TestIncludedConfigAndContinuedLinesAsk(t *testing.T) {
	main, wt := includeRepo(t)
	calls := []fakemodel.Call{
		{ID: "include", Name: "write", Args: map[string]string{"path": "devtools/git.cfg", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
		{ID: "includeEdit", Name: "edit", Args: map[string]string{"path": "devtools/git.cfg", "oldText": "hooksPath = tools/hooks", "newText": "fsmonitor = touch pwned"}},
		{ID: "hook", Name: "write", Args: map[string]string{"path": "tools/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "continued", Name: "write", Args: map[string]string{"path": ".githooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "ok", Name: "write", Args: map[string]string{"path": "src/ok.go", "content": "package src\n"}},
	}
	// A second config file, included from .git/config, names its hooks
	// folder on a continued line: git reads ".githooks".
	common := filepath.Join(main, ".git")
	os.WriteFile(filepath.Join(common, "more.cfg"), []byte("[core]\n\thooksPath = .git\\\nhooks\n"), 0o644)
	worktreetest.Git(t, main, "config", "--add", "include.path", "more.cfg")
	for _, root := range []string{main, wt} {
		if got := strings.TrimSpace(worktreetest.Git(t, root, "config", "core.hooksPath")); got != ".githooks" {
			t.Fatalf("%s: git reads the continued hooksPath as %q", root, got)
		}
	}
	reasons := map[string]map[string]string{}
	for _, root := range []string{main, wt} {
		reasons[root] = askedInAutoEdits(t, root, calls)
		if got := read(t, filepath.Join(root, "devtools", "git.cfg")); strings.Contains(got, "fsmonitor") {
			t.Errorf("%s: the included config was changed without approval: %q", root, got)
		}
		if got := read(t, filepath.Join(root, "tools", "hooks", "pre-commit")); got != "#!/bin/sh\nexit 0\n" {
			t.Errorf("%s: the hook the included config names was changed without approval: %q", root, got)
		}
		if _, err := os.Stat(filepath.Join(root, ".githooks", "pre-commit")); err == nil {
			t.Errorf("%s: a hook in the continued hooksPath was written without approval", root)
		}
		if _, err := os.Stat(filepath.Join(root, "src", "ok.go")); err != nil {
			t.Errorf("%s: the ordinary write did not happen: %v", root, err)
		}
	}
	askedAlike(t, calls, reasons[main], reasons[wt], "")
	if why := reasons[main]["include"]; !strings.Contains(why, "include") {
		t.Errorf("the reason for the included config does not say it is included: %q", why)
	}
}

// The other forms an include takes: includeIf with any condition (true
// or not, it is treated as active), a nested include relative to the
// including file's folder, a target that does not exist yet (writing it
// creates what git will read), "~/" and an absolute path, and a missing,
// FIFO, huge or cyclic include, which are read bounded and never block.
func TestIncludeForms(t *testing.T) {
	worktreetest.Need(t)
	root := tempRoot(t)
	worktreetest.Repo(t, root, map[string]string{"src/a.go": "package src\n"})
	home := tempRoot(t)
	t.Setenv("HOME", home)
	asks := func(rel string) string {
		t.Helper()
		return returns(t, "runOnUse "+rel, func() string { return runOnUse(root, filepath.Join(root, filepath.FromSlash(rel))) })
	}
	cfg := func(file, body string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(file))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	worktreetest.Git(t, root, "config", "includeIf.gitdir:/nowhere/.path", "../cond/never.cfg")
	worktreetest.Git(t, root, "config", "includeIf.onbranch:main.path", filepath.Join(root, "cond", "abs.cfg"))
	worktreetest.Git(t, root, "config", "include.path", "~/in-home.cfg")
	os.Symlink(root, filepath.Join(home, "proj"))
	worktreetest.Git(t, root, "config", "--add", "include.path", "~/proj/via-home.cfg")
	cfg("cond/abs.cfg", "[include]\n\tpath = nested/one.cfg\n")
	cfg("cond/nested/one.cfg", "[core]\n\thooksPath = nested-hooks\n[include]\n\tpath = ../../not-yet.cfg\n\tpath = one.cfg\n")
	for _, p := range []string{"cond/never.cfg", "cond/abs.cfg", "cond/nested/one.cfg", "not-yet.cfg", "via-home.cfg", "nested-hooks/pre-commit"} {
		if why := asks(p); why == "" {
			t.Errorf("%s does not ask", p)
		}
	}
	for _, p := range []string{"cond/other.cfg", "nested/one.cfg", "src/a.go", "in-home.cfg"} {
		if why := asks(p); why != "" {
			t.Errorf("%s asks: %s", p, why)
		}
	}

	// A cycle and a long chain: each file includes the next (the last
	// itself); git stops at ten levels, and so does the reader, at once.
	for i := range 30 {
		cfg(fmt.Sprintf("chain/c%02d.cfg", i), fmt.Sprintf("[include]\n\tpath = c%02d.cfg\n", min(i+1, 29)))
	}
	// git refuses a config with a chain this deep, so it is appended by hand.
	f, err := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[include]\n\tpath = ../chain/c00.cfg\n")
	f.Close()
	if why := asks("chain/c01.cfg"); why == "" {
		t.Error("the second file of an include chain does not ask")
	}
	if why := asks("chain/c20.cfg"); why != "" {
		t.Errorf("an include past the depth bound was followed: %s", why)
	}

	// Odd include targets cost one refused open each, and relax nothing.
	mkfifo(t, filepath.Join(root, "not-yet.cfg"))
	os.WriteFile(filepath.Join(home, "in-home.cfg"), []byte("[core]\n\thooksPath = big-hooks\n"+strings.Repeat("# padding\n", 1<<20)), 0o644)
	for _, p := range []string{"not-yet.cfg", "cond/nested/one.cfg", "nested-hooks/x", ".git/config"} {
		if why := asks(p); why == "" {
			t.Errorf("with odd includes, %s does not ask", p)
		}
	}
	if why := asks("big-hooks/x"); why != "" {
		t.Errorf("an include past the size bound was read: %s", why)
	}
}

// The config syntax the reader follows as git does, each checked against
// git itself on a real file: continued lines (also inside quotes and
// after CRLF), a comment that does not continue, a byte-order mark,
// subsections that are not the section, and a bad line that git stops
// at (the reader goes on: it may only add rules).
func TestGitConfigSyntaxAsGitReadsIt(t *testing.T) {
	worktreetest.Need(t)
	dir := tempRoot(t)
	for _, c := range []struct{ config, want string }{
		{"[core]\n\thooksPath = .git\\\nhooks\n", ".githooks"},
		{"[core]\n\thooksPath = \"a \\\n  b\"\n", "a   b"},
		{"[core]\r\n\thooksPath = x\\\r\ny \r\n", "xy"},
		{"[core]\n\thooksPath = x # note \\\n\tbare = false\n", "x"},
		{"\xef\xbb\xbf[core]\nhooksPath=bom", "bom"},
		{"[core]\nhooksPath = a\n[core \"x\"]\nhooksPath = b\n[core.y]\nhooksPath = c\n", "a"},
		{"[core]\nhooksPath = x \"\" \n", "x "},
		{"[core]\n\thooksPath = a\\\n\\\nb\n", "ab"},
		{"[core]hooksPath=tight", "tight"},
		{"[CORE]\n\tHOOKSPATH = \"q\\\"uote\\\\d\"\n", "q\"uote\\d"},
	} {
		p := filepath.Join(dir, "c.cfg")
		os.WriteFile(p, []byte(c.config), 0o644)
		if got := strings.TrimSuffix(worktreetest.Git(t, dir, "config", "--file", p, "core.hooksPath"), "\n"); got != c.want {
			t.Fatalf("git reads %q as %q, the test wants %q", c.config, got, c.want)
		}
		if got, set := gitConfigValue(c.config, "core", "hooksPath"); got != c.want || !set {
			t.Errorf("%q: read %q (set %v), git reads %q", c.config, got, set, c.want)
		}
	}
}

// BenchmarkRunOnUseWithIncludes is the guard's cost for one write in a
// linked worktree whose config includes a tracked file that includes
// another, and includes that one again under a condition
// (four config files read per write).
func BenchmarkRunOnUseWithIncludes(b *testing.B) {
	worktreetest.Need(b)
	base, _ := filepath.EvalSymlinks(b.TempDir())
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	worktreetest.Repo(b, main, map[string]string{
		"devtools/git.cfg":  "[core]\n\thooksPath = tools/hooks\n[include]\n\tpath = more.cfg\n",
		"devtools/more.cfg": "[alias]\n\tst = status\n",
		"src/a.go":          "package src\n",
	})
	worktreetest.Git(b, main, "config", "include.path", "../devtools/git.cfg")
	worktreetest.Git(b, main, "config", "includeIf.onbranch:feature.path", "../devtools/more.cfg")
	worktreetest.Git(b, main, "worktree", "add", "-q", "-b", "feature", wt)
	target := filepath.Join(wt, "src", "deep", "file.go")
	b.ReportAllocs()
	for b.Loop() {
		if why := runOnUse(wt, target); why != "" {
			b.Fatal(why)
		}
	}
}

package toolpolicy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// The other forms an include takes: includeIf with any condition (true
// or not, it is treated as active), a nested include relative to the
// including file's folder, a target that does not exist yet (writing it
// creates what git will guardtest.Read), "~/" and an absolute path, and a missing,
// FIFO, huge or cyclic include, which are read bounded and never block.
func TestIncludeForms(t *testing.T) {
	worktreetest.Need(t)
	root := guardtest.TempRoot(t)
	worktreetest.Repo(t, root, map[string]string{"src/a.go": "package src\n"})
	home := guardtest.TempRoot(t)
	t.Setenv("HOME", home)
	asks := func(rel string) string {
		t.Helper()
		return guardtest.Returns(t, "runOnUse "+rel, func() string { return RunOnUse(root, filepath.Join(root, filepath.FromSlash(rel))) })
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
	dir := guardtest.TempRoot(t)
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
		if why := RunOnUse(wt, target); why != "" {
			b.Fatal(why)
		}
	}
}

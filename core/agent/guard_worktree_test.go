package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// hooksRepo makes a real repository whose config moves its hooks to
// .githooks/ (as husky does), with a committed hook, and a linked worktree
// of it (git worktree add), as a worktree session works in.
func hooksRepo(t *testing.T) (main, wt string) {
	t.Helper()
	worktreetest.Need(t)
	base := tempRoot(t)
	main, wt = filepath.Join(base, "main"), filepath.Join(base, "wt")
	worktreetest.Repo(t, main, map[string]string{".githooks/pre-commit": "#!/bin/sh\nexit 0\n", "src/a.go": "package src\n"})
	worktreetest.Git(t, main, "config", "core.hooksPath", ".githooks")
	worktreetest.Git(t, main, "worktree", "add", "-q", "-b", "feature", wt)
	for _, root := range []string{main, wt} {
		// A planted repository's shape (makesGitDir).
		for _, d := range []string{"vendor2/objects", "vendor2/refs"} {
			os.MkdirAll(filepath.Join(root, d), 0o755)
		}
		os.WriteFile(filepath.Join(root, "vendor2", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	}
	return main, wt
}

// A worktree session asks before the same writes as a session in the main
// checkout, with the same reasons: core.hooksPath is read from the common
// git dir's config although .git is a file there.
func TestWorktreeAsksExactlyAsItsMainCheckout(t *testing.T) {
	main, wt := hooksRepo(t)
	calls := []fakemodel.Call{
		{ID: "hook", Name: "write", Args: map[string]string{"path": ".githooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "newhook", Name: "write", Args: map[string]string{"path": ".githooks/post-checkout", "content": "#!/bin/sh\ntouch pwned\n"}},
		{ID: "edit", Name: "edit", Args: map[string]string{"path": ".githooks/pre-commit", "oldText": "exit 0", "newText": "touch pwned"}},
		{ID: "dotgit", Name: "write", Args: map[string]string{"path": ".git", "content": "gitdir: /tmp/elsewhere\n"}},
		{ID: "envrc", Name: "write", Args: map[string]string{"path": ".envrc", "content": "touch pwned\n"}},
		{ID: "husky", Name: "write", Args: map[string]string{"path": ".husky/pre-push", "content": "x"}},
		{ID: "settings", Name: "write", Args: map[string]string{"path": ".pi/settings.json", "content": `{"shellPath":"/tmp/evil"}`}},
		{ID: "planted", Name: "write", Args: map[string]string{"path": "vendor2/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
		{ID: "ok", Name: "write", Args: map[string]string{"path": "src/ok.go", "content": "package src\n"}},
	}
	reasons := map[string]map[string]string{}
	for _, root := range []string{main, wt} {
		reasons[root] = askedInAutoEdits(t, root, calls)
		if got := read(t, filepath.Join(root, ".githooks", "pre-commit")); got != "#!/bin/sh\nexit 0\n" {
			t.Errorf("%s: the hook was changed without approval: %q", root, got)
		}
		if _, err := os.Stat(filepath.Join(root, ".githooks", "post-checkout")); err == nil {
			t.Errorf("%s: a new hook was written without approval", root)
		}
		if _, err := os.Stat(filepath.Join(root, "src", "ok.go")); err != nil {
			t.Errorf("%s: the ordinary write did not happen: %v", root, err)
		}
	}
	askedAlike(t, calls, reasons[main], reasons[wt], "dotgit") // .git is a folder in one, a file in the other
	if !strings.Contains(reasons[wt]["hook"], "core.hooksPath") {
		t.Errorf("the worktree's reason for .githooks/pre-commit = %q", reasons[wt]["hook"])
	}
	// The worktree's hook is what git runs at the user's next commit there.
	if data := read(t, filepath.Join(wt, ".githooks", "pre-commit")); strings.Contains(data, "pwned") {
		t.Error("the worktree's hook was written")
	}
}

// askedInAutoEdits runs calls in an auto-edits session at root, denying
// every approval, and returns the reason asked with, by call ID.
func askedInAutoEdits(t *testing.T, root string, calls []fakemodel.Call) map[string]string {
	t.Helper()
	var mu sync.Mutex
	asked := map[string]string{}
	h := newHarness(t, allCallsThenDone(calls), func(c *Config) {
		c.Root = root
		c.Permission = PermissionAutoEdits
		c.Approve = func(ctx context.Context, a Approval) (bool, error) {
			mu.Lock()
			asked[a.ToolCallID] = a.Reason
			mu.Unlock()
			return false, nil
		}
	})
	if _, err := h.ag.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	return asked
}

// askedAlike fails unless every call but "ok" asked in the main checkout
// and in the worktree, with the same reason (but for the call differs),
// and "ok" asked in neither.
func askedAlike(t *testing.T, calls []fakemodel.Call, inMain, inWT map[string]string, differs string) {
	t.Helper()
	for _, c := range calls {
		m, askedMain := inMain[c.ID]
		w, askedWT := inWT[c.ID]
		if c.ID == "ok" {
			if askedMain || askedWT {
				t.Errorf("an ordinary write asked (main %v, worktree %v)", askedMain, askedWT)
			}
			continue
		}
		if !askedMain || !askedWT {
			t.Errorf("%s %v: asked in the main checkout %v, in the worktree %v; want both", c.Name, c.Args, askedMain, askedWT)
			continue
		}
		if m != w && c.ID != differs {
			t.Errorf("%s: reasons differ:\n  main:     %s\n  worktree: %s", c.ID, m, w)
		}
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The other places a hooksPath can come from and the forms it takes, in a
// real worktree: an absolute path, a worktree's own config.worktree (with
// extensions.worktreeConfig), a project that is a sub-folder of its
// checkout (a relative path is relative to the checkout's top), and the
// worktree's and the repository's git dirs themselves.
func TestWorktreeHooksPathForms(t *testing.T) {
	main, wt := hooksRepo(t)
	asks := func(root, rel string) bool {
		return runOnUse(root, filepath.Join(root, filepath.FromSlash(rel))) != ""
	}

	worktreetest.Git(t, main, "config", "core.hooksPath", filepath.Join(wt, "abs-hooks"))
	if !asks(wt, "abs-hooks/pre-commit") {
		t.Error("an absolute hooksPath into the worktree does not ask there")
	}
	if asks(wt, ".githooks/pre-commit") {
		t.Error("the relative hooksPath replaced by an absolute one still asks")
	}

	worktreetest.Git(t, main, "config", "core.hooksPath", "pkg/hooks")
	if !asks(filepath.Join(wt, "pkg"), "hooks/pre-push") {
		t.Error("a project in a sub-folder of the worktree: its hooks (relative to the top) do not ask")
	}

	worktreetest.Git(t, main, "config", "extensions.worktreeConfig", "true")
	worktreetest.Git(t, wt, "config", "--worktree", "core.hooksPath", "own-hooks")
	if !asks(wt, "own-hooks/pre-commit") {
		t.Error("the worktree's config.worktree hooksPath does not ask")
	}
	if asks(main, "own-hooks/pre-commit") {
		t.Error("another worktree's config.worktree applies to the main checkout")
	}
	if !asks(wt, "pkg/hooks/pre-commit") {
		t.Error("config.worktree relaxed the common config's hooksPath")
	}

	// The git dirs, wherever .git points: one inside the project asks.
	common := filepath.Join(main, ".git")
	l, ok := readGitLayout(wt)
	if !ok || l.common != common || !strings.HasPrefix(l.gitDir, filepath.Join(common, "worktrees")+"/") || l.top != wt {
		t.Fatalf("layout of the worktree = %+v, %v", l, ok)
	}
	if why := runOnUse(main, filepath.Join(l.gitDir, "HEAD")); why == "" {
		t.Error("the worktree's git dir does not ask")
	}
	inner := tempRoot(t)
	os.MkdirAll(filepath.Join(inner, "store", "hooks"), 0o755)
	os.WriteFile(filepath.Join(inner, ".git"), []byte("gitdir: store\n"), 0o644)
	for _, p := range []string{"store/hooks/pre-commit", "store/config"} {
		if !asks(inner, p) {
			t.Errorf("%s, in the git dir .git names, does not ask", p)
		}
	}
}

// A .git file naming a hostile git dir outside the project: its files are
// read bounded and never block (a FIFO for commondir and config, a huge
// config), and what it says cannot relax any rule: .git itself, .envrc,
// .husky, a planted repository still ask.
func TestHostileGitFileIsBoundedAndRelaxesNothing(t *testing.T) {
	root, evil := tempRoot(t), tempRoot(t)
	os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+evil+"\n"), 0o644)
	for _, d := range []string{"vendor2/objects", "vendor2/refs"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "vendor2", "HEAD"), []byte("x"), 0o644)
	mkfifo(t, filepath.Join(evil, "commondir"))
	mkfifo(t, filepath.Join(evil, "config"))
	must := []string{".git", ".envrc", ".husky/pre-commit", ".pi/settings.json", "vendor2/config"}
	check := func(what string) {
		t.Helper()
		for _, p := range must {
			why := returns(t, "runOnUse with "+what, func() string { return runOnUse(root, filepath.Join(root, filepath.FromSlash(p))) })
			if why == "" {
				t.Errorf("with %s, %s does not ask", what, p)
			}
		}
		if why := runOnUse(root, filepath.Join(root, "src", "ok.go")); why != "" {
			t.Errorf("with %s, an ordinary file asks: %s", what, why)
		}
	}
	check("FIFOs for commondir and config")

	os.Remove(filepath.Join(evil, "commondir"))
	os.Remove(filepath.Join(evil, "config"))
	huge := "[core]\n\thooksPath = .githooks\n" + strings.Repeat("# padding\n", 1<<20)
	os.WriteFile(filepath.Join(evil, "config"), []byte(huge), 0o644)
	check("a huge config")
	if why := runOnUse(root, filepath.Join(root, ".githooks", "x")); why != "" {
		t.Errorf("a config past the bound was read: %s", why)
	}

	// A readable hostile config can only add rules.
	os.WriteFile(filepath.Join(evil, "config"), []byte("[core]\n\thooksPath = .githooks\n"), 0o644)
	check("a hooksPath")
	if why := runOnUse(root, filepath.Join(root, ".githooks", "x")); why == "" {
		t.Error("the hostile config's hooksPath does not ask")
	}

	// A .git file that is huge or a FIFO names nothing.
	os.Remove(filepath.Join(root, ".git"))
	mkfifo(t, filepath.Join(root, ".git"))
	check("a FIFO for .git")
	os.Remove(filepath.Join(root, ".git"))
	os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: "+strings.Repeat("a", 1<<20)), 0o644)
	check("a huge .git file")
}

// BenchmarkRunOnUseInWorktree is the guard's cost for one write in a
// linked worktree (it reads the .git file, commondir and the config).
func BenchmarkRunOnUseInWorktree(b *testing.B) {
	worktreetest.Need(b)
	base, _ := filepath.EvalSymlinks(b.TempDir())
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	worktreetest.Repo(b, main, map[string]string{"src/a.go": "package src\n"})
	worktreetest.Git(b, main, "config", "core.hooksPath", ".githooks")
	worktreetest.Git(b, main, "worktree", "add", "-q", "-b", "feature", wt)
	target := filepath.Join(wt, "src", "deep", "file.go")
	b.ReportAllocs()
	for b.Loop() {
		if why := runOnUse(wt, target); why != "" {
			b.Fatal(why)
		}
	}
}

// FuzzGitConfigValue: the config reader never panics, and a value written
// the way git writes it (quoted, with escapes) reads back as it was.
func FuzzGitConfigValue(f *testing.F) {
	f.Add("[core]\n\thooksPath = .githooks\n", ".githooks")
	f.Add("[core] hooksPath=\"x\" ; c\n[core \"y\"]\nhooksPath=z", `a "b" \ c`)
	f.Add("[core\n\thooksPath\n", "\t#;")
	f.Add("[core]\n\thooksPath = .git\\\nhooks\n[x]\na = \\", "a\\")
	f.Add("\xef\xbb\xbf[include]\r\n\tpath = \"a\\\r\nb\" ; c\n[core \"q\\\"\"] x", " ")
	f.Fuzz(func(t *testing.T, config, value string) {
		gitConfigValue(config, "core", "hooksPath")
		if strings.ContainsAny(value, "\n\r\x00\b") {
			return
		}
		esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`).Replace(value)
		// Two newlines: a config ending in a backslash continues onto the
		// first, as git reads it.
		got, set := gitConfigValue(config+"\n\n[core]\n\thooksPath = \""+esc+"\"\n", "core", "hooksPath")
		if !set || got != value {
			t.Errorf("wrote %q, read %q (set %v)", value, got, set)
		}
	})
}

// A worktree inside its bare repository's folder (a layout some use): the
// git dir holds the checkout, and ordinary writes there do not ask, while
// the rules by name and shape still do.
func TestWorktreeInsideItsBareRepository(t *testing.T) {
	worktreetest.Need(t)
	base := tempRoot(t)
	src, bare := filepath.Join(base, "src"), filepath.Join(base, "repo.git")
	worktreetest.Repo(t, src, map[string]string{"a.go": "package a\n"})
	worktreetest.Git(t, base, "clone", "-q", "--bare", src, bare)
	wt := filepath.Join(bare, "wt")
	worktreetest.Git(t, bare, "worktree", "add", "-q", "-b", "feature", wt)
	if why := runOnUse(wt, filepath.Join(wt, "b.go")); why != "" {
		t.Errorf("an ordinary write in a worktree inside its bare repository asks: %s", why)
	}
	if why := runOnUse(wt, filepath.Join(wt, ".envrc")); why == "" {
		t.Error(".envrc does not ask there")
	}
}

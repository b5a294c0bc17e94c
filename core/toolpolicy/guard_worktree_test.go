package toolpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// The other places a hooksPath can come from and the forms it takes, in a
// real worktree: an absolute path, a worktree's own config.worktree (with
// extensions.worktreeConfig), a project that is a sub-folder of its
// checkout (a relative path is relative to the checkout's top), and the
// worktree's and the repository's git dirs themselves.
func TestWorktreeHooksPathForms(t *testing.T) {
	main, wt := guardtest.HooksRepo(t)
	asks := func(root, rel string) bool {
		return RunOnUse(root, filepath.Join(root, filepath.FromSlash(rel))) != ""
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
	if why := RunOnUse(main, filepath.Join(l.gitDir, "HEAD")); why == "" {
		t.Error("the worktree's git dir does not ask")
	}
	inner := guardtest.TempRoot(t)
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
	root, evil := guardtest.TempRoot(t), guardtest.TempRoot(t)
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
			why := guardtest.Returns(t, "runOnUse with "+what, func() string { return RunOnUse(root, filepath.Join(root, filepath.FromSlash(p))) })
			if why == "" {
				t.Errorf("with %s, %s does not ask", what, p)
			}
		}
		if why := RunOnUse(root, filepath.Join(root, "src", "ok.go")); why != "" {
			t.Errorf("with %s, an ordinary file asks: %s", what, why)
		}
	}
	check("FIFOs for commondir and config")

	os.Remove(filepath.Join(evil, "commondir"))
	os.Remove(filepath.Join(evil, "config"))
	huge := "[core]\n\thooksPath = .githooks\n" + strings.Repeat("# padding\n", 1<<20)
	os.WriteFile(filepath.Join(evil, "config"), []byte(huge), 0o644)
	check("a huge config")
	if why := RunOnUse(root, filepath.Join(root, ".githooks", "x")); why != "" {
		t.Errorf("a config past the bound was read: %s", why)
	}

	// A readable hostile config can only add rules.
	os.WriteFile(filepath.Join(evil, "config"), []byte("[core]\n\thooksPath = .githooks\n"), 0o644)
	check("a hooksPath")
	if why := RunOnUse(root, filepath.Join(root, ".githooks", "x")); why == "" {
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
		if why := RunOnUse(wt, target); why != "" {
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
	base := guardtest.TempRoot(t)
	src, bare := filepath.Join(base, "src"), filepath.Join(base, "repo.git")
	worktreetest.Repo(t, src, map[string]string{"a.go": "package a\n"})
	worktreetest.Git(t, base, "clone", "-q", "--bare", src, bare)
	wt := filepath.Join(bare, "wt")
	worktreetest.Git(t, bare, "worktree", "add", "-q", "-b", "feature", wt)
	if why := RunOnUse(wt, filepath.Join(wt, "b.go")); why != "" {
		t.Errorf("an ordinary write in a worktree inside its bare repository asks: %s", why)
	}
	if why := RunOnUse(wt, filepath.Join(wt, ".envrc")); why == "" {
		t.Error(".envrc does not ask there")
	}
}

package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// hostileRepo is a repository whose .git/config, an included file and
// config.worktree name programs that leave a mark in marks, with files
// that use every one of them.
func hostileRepo(t testing.TB) (dir, marks string) {
	t.Helper()
	worktreetest.Need(t)
	base := t.TempDir()
	dir, marks = filepath.Join(base, "repo"), filepath.Join(base, "marks")
	worktreetest.Repo(t, dir, map[string]string{
		".gitattributes": worktreetest.HostileAttributes,
		"a.txt":          "one\ntwo\n", "b.inc": "inc\n", "c.wt": "wt\n", "plain.md": "plain\n",
	})
	worktreetest.Hostile(t, dir, marks)
	return dir, marks
}

func find(t testing.TB, env map[string]string) *Git {
	t.Helper()
	base := worktreetest.Env(t)
	g, err := Find(context.Background(), Options{Env: func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return base(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// run runs git through g and fails the test unless it worked or failed
// saying which withheld program it needed.
func run(t *testing.T, g *Git, dir string, args ...string) string {
	t.Helper()
	out, err := g.Run(context.Background(), dir, args...)
	var ge *Error
	switch {
	case err == nil:
	case errors.As(err, &ge) && len(ge.Withheld) > 0:
		if !strings.Contains(err.Error(), "pi-tui runs no program a repository's config names") {
			t.Errorf("git %s: %v", strings.Join(args, " "), err)
		}
	default:
		t.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func TestRepositoryProgramsDoNotRun(t *testing.T) {
	dir, marks := hostileRepo(t)
	g := find(t, nil)
	for _, f := range []string{"a.txt", "b.inc", "c.wt"} {
		worktreetest.Write(t, dir, f, "changed\n")
	}
	run(t, g, dir, "status", "--porcelain")
	run(t, g, dir, "diff", "--numstat")
	run(t, g, dir, "diff", "--no-ext-diff", "--no-textconv")
	run(t, g, dir, "diff", "--no-ext-diff") // textconv withheld: works or says so
	run(t, g, dir, "diff")                  // the external diff command too
	run(t, g, dir, "add", "--all")
	run(t, g, dir, "commit", "-q", "-m", "changed") // gpg withheld: unsigned
	if log := run(t, g, dir, "log", "-1", "--format=%s %G?"); log != "changed N\n" {
		t.Errorf("the commit is %q, want made and unsigned", log)
	}
	// A checkout writes every file through its smudge filter.
	for _, f := range []string{"a.txt", "b.inc", "c.wt"} {
		os.Remove(filepath.Join(dir, f))
	}
	run(t, g, dir, "checkout", "--", ".")
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "changed\n" {
		t.Errorf("a.txt after checkout: %q", got)
	}
	worktreetest.NoMarks(t, marks)
}

// A merge where both sides changed a file whose merge driver the
// repository's config names stops, naming the driver.
func TestMergeDriverDoesNotRun(t *testing.T) {
	worktreetest.Need(t)
	base := t.TempDir()
	dir, marks := filepath.Join(base, "repo"), filepath.Join(base, "marks")
	worktreetest.Repo(t, dir, map[string]string{".gitattributes": worktreetest.HostileAttributes, "a.txt": "one\ntwo\nthree\n"})
	worktreetest.Git(t, dir, "checkout", "-q", "-b", "side")
	worktreetest.Write(t, dir, "a.txt", "one\ntwo\nthree\nside\n")
	worktreetest.Git(t, dir, "commit", "-q", "-am", "side")
	worktreetest.Git(t, dir, "checkout", "-q", "main")
	worktreetest.Write(t, dir, "a.txt", "main\none\ntwo\nthree\n")
	worktreetest.Git(t, dir, "commit", "-q", "-am", "main")
	worktreetest.Hostile(t, dir, marks)
	g := find(t, nil)
	_, err := g.Run(context.Background(), dir, "merge", "--no-edit", "side")
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "merge.evil.driver") {
		t.Errorf("a merge needing the repository's merge driver: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "main\none\ntwo\nthree\n" {
		t.Errorf("a.txt after the merge: %q", got)
	}
	worktreetest.NoMarks(t, marks)
}

// A long-running filter process (filter.<name>.process) is withheld too:
// git then reads and writes the file as it is.
func TestFilterProcessDoesNotRun(t *testing.T) {
	dir, marks := hostileRepo(t)
	worktreetest.Write(t, dir, "d.proc", "proc\n")
	g := find(t, nil)
	run(t, g, dir, "add", "d.proc")
	run(t, g, dir, "commit", "-q", "-m", "proc")
	os.Remove(filepath.Join(dir, "d.proc"))
	run(t, g, dir, "checkout", "--", "d.proc")
	if got, _ := os.ReadFile(filepath.Join(dir, "d.proc")); string(got) != "proc\n" {
		t.Errorf("d.proc after checkout: %q", got)
	}
	worktreetest.NoMarks(t, marks)
}

func TestUserGlobalProgramsRun(t *testing.T) {
	dir, marks := hostileRepo(t)
	userMarks := filepath.Join(t.TempDir(), "user")
	os.MkdirAll(userMarks, 0o755)
	global := filepath.Join(t.TempDir(), "gitconfig")
	// The user's own filter for *.txt, which the repository overrides
	// with its own program.
	os.WriteFile(global, []byte("[filter \"evil\"]\n\tsmudge = touch '"+filepath.Join(userMarks, "smudge")+"'; cat\n"), 0o644)
	g := find(t, map[string]string{"GIT_CONFIG_GLOBAL": global})
	os.Remove(filepath.Join(dir, "a.txt"))
	run(t, g, dir, "checkout", "--", "a.txt")
	if _, err := os.Stat(filepath.Join(userMarks, "smudge")); err != nil {
		t.Error("the filter of the user's global config did not run")
	}
	worktreetest.NoMarks(t, marks)
}

// A config changed after a call (a new program, an include appearing) is
// read again on the next, whether git runs at the checkout's top or in a
// folder below it.
func TestConfigChangesAreSeen(t *testing.T) {
	for _, in := range []string{".", "sub/deeper"} {
		t.Run(in, func(t *testing.T) {
			worktreetest.Need(t)
			base := t.TempDir()
			dir, marks := filepath.Join(base, "repo"), filepath.Join(base, "marks")
			worktreetest.Repo(t, dir, map[string]string{".gitattributes": "*.txt filter=late\n*.md filter=later\n", "a.txt": "a\n", "b.md": "b\n", "sub/deeper/c": "c\n"})
			os.MkdirAll(marks, 0o755)
			g := find(t, nil)
			at := filepath.Join(dir, in)
			worktreetest.Git(t, dir, "config", "include.path", "later.cfg") // not there yet
			run(t, g, at, "status", "--porcelain")
			worktreetest.Git(t, dir, "config", "filter.late.smudge", "touch '"+filepath.Join(marks, "late")+"'; cat")
			os.Remove(filepath.Join(dir, "a.txt"))
			run(t, g, at, "checkout", "--", ":/a.txt")
			run(t, g, at, "status", "--porcelain")
			os.WriteFile(filepath.Join(dir, ".git", "later.cfg"), []byte("[filter \"later\"]\n\tsmudge = touch '"+filepath.Join(marks, "later")+"'; cat\n"), 0o644)
			os.Remove(filepath.Join(dir, "b.md"))
			run(t, g, at, "checkout", "--", ":/b.md")
			worktreetest.NoMarks(t, marks)
		})
	}
}

// A required filter whose program is withheld stops a checkout with a
// sentence naming it, and leaves the file as it was.
func TestRequiredFilterStops(t *testing.T) {
	dir, marks := hostileRepo(t)
	worktreetest.Git(t, dir, "config", "filter.evil.required", "true")
	g := find(t, nil)
	os.Remove(filepath.Join(dir, "a.txt"))
	_, err := g.Run(context.Background(), dir, "checkout", "--", "a.txt")
	var ge *Error
	if !errors.As(err, &ge) || len(ge.Withheld) != 1 || !ge.Withheld[0].Required || !strings.Contains(err.Error(), "filter.evil.smudge") {
		t.Fatalf("checkout with a withheld required filter: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a.txt was written without its required filter")
	}
	ps, err := g.Withheld(context.Background(), dir)
	if err != nil || len(ps) == 0 {
		t.Errorf("Withheld: %v %v", ps, err)
	}
	worktreetest.NoMarks(t, marks)
}

func TestNotARepository(t *testing.T) {
	worktreetest.Need(t)
	g := find(t, nil)
	_, err := g.Run(context.Background(), t.TempDir(), "status")
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("status outside a repository: %v", err)
	}
}

// A repository made inside a folder after git ran there (git init in a
// subfolder of a checkout) is another repository with a config of its
// own: the next call reads it.
func TestNewRepositoryBelowIsSeen(t *testing.T) {
	worktreetest.Need(t)
	base := t.TempDir()
	dir, marks := filepath.Join(base, "repo"), filepath.Join(base, "marks")
	worktreetest.Repo(t, dir, map[string]string{"a.txt": "a\n"})
	os.MkdirAll(marks, 0o755)
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	g := find(t, nil)
	run(t, g, sub, "status", "--porcelain")
	worktreetest.Repo(t, sub, map[string]string{".gitattributes": "*.txt filter=evil\n", "b.txt": "b\n"})
	worktreetest.Git(t, sub, "config", "filter.evil.smudge", "touch '"+filepath.Join(marks, "smudge")+"'; cat")
	os.Remove(filepath.Join(sub, "b.txt"))
	run(t, g, sub, "checkout", "--", "b.txt")
	worktreetest.NoMarks(t, marks)
}

// Calls in parallel share the cached overrides safely.
func TestParallelRuns(t *testing.T) {
	dir, marks := hostileRepo(t)
	g := find(t, nil)
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			_, err := g.Run(context.Background(), dir, "status", "--porcelain")
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	worktreetest.NoMarks(t, marks)
}

// The overrides cost git runs only when a config changed: a call with
// the config as it was runs git once (the command itself); after a
// change, one git config run comes first, without a rev-parse (the
// repository is where it was).
func TestOverridesAreReadOnlyWhenAConfigChanges(t *testing.T) {
	worktreetest.Need(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	dir, bin, log := filepath.Join(base, "repo"), filepath.Join(base, "bin"), filepath.Join(base, "log")
	worktreetest.Repo(t, dir, map[string]string{"a.txt": "a\n"})
	os.MkdirAll(bin, 0o755)
	// A git that notes each run's command (the first word after the
	// options pi-tui puts before it) and runs the real one.
	script := "#!/bin/sh\nfor a; do case $a in -c|-C|--no-optional-locks) skip=1;; *) if [ -z \"$skip\" ]; then echo \"$a\" >> '" + log + "'; break; fi; skip=;; esac; done\nexec '" + real + "' \"$@\"\n"
	os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755)
	g := find(t, map[string]string{"PATH": bin + ":" + os.Getenv("PATH")})
	runs := func() string {
		b, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Join(strings.Fields(string(b)), " ")
	}
	runs()
	run(t, g, dir, "status", "--porcelain")
	if got := runs(); got != "rev-parse config status" {
		t.Errorf("first call ran %q", got)
	}
	run(t, g, dir, "status", "--porcelain")
	if got := runs(); got != "status" {
		t.Errorf("second call ran %q", got)
	}
	worktreetest.Git(t, dir, "config", "filter.x.smudge", "cat")
	run(t, g, dir, "status", "--porcelain")
	if got := runs(); got != "config status" {
		t.Errorf("after a config change ran %q", got)
	}
}

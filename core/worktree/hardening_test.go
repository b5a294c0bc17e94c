package worktree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// hostileRig is a rig whose project's .git/config (and a file it
// includes, and config.worktree) names filter, merge, diff, signing, ssh
// and credential programs that leave a mark when run, with files that use
// them.
func hostileRig(t *testing.T) (*rig, string) {
	t.Helper()
	r := newHost(t)
	r.root = filepath.Join(r.h.Places.Home, "proj")
	worktreetest.Repo(t, r.root, map[string]string{
		".gitattributes": worktreetest.HostileAttributes,
		"a.txt":          "one\ntwo\nthree\n", "b.inc": "inc\n", "c.wt": "wt\n", "plain.md": "plain\n",
	})
	marks := filepath.Join(t.TempDir(), "marks")
	worktreetest.Hostile(t, r.root, marks)
	r.add(r.root)
	return r, marks
}

// Everything pi-tui does with a worktree session (create, the list's
// status, diff, commit, merge, a merge needing the repository's merge
// driver, discard) runs none of the programs the repository's own config
// names; each works or says which program it would need.
func TestRepositoryProgramsNeverRun(t *testing.T) {
	t.Parallel()
	r, marks := hostileRig(t)
	ctx := context.Background()
	s, w := r.newSession()
	if got := read(t, filepath.Join(w.Root, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Fatalf("a.txt in the new worktree: %q", got)
	}
	for _, f := range []string{"a.txt", "b.inc", "c.wt"} {
		worktreetest.Write(t, w.Root, f, "changed in the session\n")
	}
	sts := r.svc.Statuses(ctx, map[string]sessions.Worktree{s.ID(): w}, 0)
	if st, ok := sts[s.ID()]; !ok || len(st.Changed) != 3 {
		t.Errorf("the list's status: %+v %v", st, ok)
	}
	if d, err := r.svc.Diff(ctx, s); err != nil || !strings.Contains(d, "+changed in the session") {
		t.Errorf("diff: %v\n%s", err, d)
	}
	res, _, err := r.svc.Merge(ctx, s, "session work")
	if err != nil || !res.Committed || !res.FastForward {
		t.Fatalf("merge: %+v %v", res, err)
	}
	if got := read(t, filepath.Join(r.root, "b.inc")); got != "changed in the session\n" {
		t.Errorf("b.inc after the merge: %q", got)
	}
	if sig := worktreetest.Git(t, r.root, "log", "-1", "--format=%G?"); sig != "N\n" {
		t.Errorf("the commit's signature status is %q, want unsigned", sig)
	}

	// Both sides change a.txt, whose merge driver the config names: the
	// merge stops before anything changes, naming the driver.
	s2, w2 := r.newSession()
	worktreetest.Write(t, w2.Root, "a.txt", "one\ntwo\nthree\nfrom the session\n")
	worktreetest.Write(t, r.root, "a.txt", "from main\n")
	worktreetest.Git(t, r.root, "-c", "filter.evil.clean=cat", "-c", "filter.inc.clean=cat", "-c", "filter.wt.clean=cat", "commit", "-qam", "main moves") // the test's own git
	head := worktreetest.Git(t, r.root, "rev-parse", "HEAD")
	_, _, err = r.svc.Merge(ctx, s2, "second")
	var pe *worktree.ProgramMergeError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "merge.evil.driver") || !strings.Contains(err.Error(), "git -C "+r.root+" merge "+w2.Branch) {
		t.Fatalf("merge needing the driver: %v", err)
	}
	if worktreetest.Git(t, r.root, "rev-parse", "HEAD") != head || read(t, filepath.Join(r.root, "a.txt")) != "from main\n" {
		t.Error("the refused merge changed the main checkout")
	}
	if _, err := r.svc.Discard(ctx, s2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w2.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discarded worktree still there: %v", err)
	}
	worktreetest.NoMarks(t, marks)
}

// A required filter whose program the repository's config names cannot
// be run, so no worktree can be checked out: the sentence names it, and
// neither a folder nor a branch is left behind.
func TestRequiredFilterStopsTheWorktree(t *testing.T) {
	t.Parallel()
	r, marks := hostileRig(t)
	worktreetest.Git(t, r.root, "config", "filter.evil.required", "true")
	_, _, err := r.svc.NewSession(context.Background(), r.sm, r.pid, "", "")
	if err == nil || !strings.Contains(err.Error(), "filter.evil.smudge") || !strings.Contains(err.Error(), "global git config") {
		t.Fatalf("new worktree session with a withheld required filter: %v", err)
	}
	if out := worktreetest.Git(t, r.root, "branch", "--list", "pi/*"); out != "" {
		t.Errorf("branches left: %s", out)
	}
	if ents, _ := os.ReadDir(filepath.Join(r.h.Places.DataDir, "worktrees", r.pid)); len(ents) != 0 {
		t.Errorf("worktree folders left: %v", ents)
	}
	worktreetest.NoMarks(t, marks)
}

// The user's own programs still run: a filter of their global config
// (as git-lfs is) smudges the worktree's files.
func TestUserGlobalFilterRunsInTheWorktree(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	r := newHost(t)
	mark := filepath.Join(t.TempDir(), "user-smudge")
	global := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(global, []byte("[filter \"mine\"]\n\tsmudge = touch '"+mark+"'; cat\n\tclean = cat\n"), 0o644)
	env := worktreetest.Env(t)
	r.svc = worktree.NewService(r.h.Store, r.h.Places.DataDir, worktree.Options{Env: func(k string) string {
		if k == "GIT_CONFIG_GLOBAL" {
			return global
		}
		return env(k)
	}})
	r.root = filepath.Join(r.h.Places.Home, "proj")
	worktreetest.Repo(t, r.root, map[string]string{".gitattributes": "*.bin filter=mine\n", "x.bin": "data\n"})
	r.add(r.root)
	r.newSession()
	if _, err := os.Stat(mark); err != nil {
		t.Error("the filter of the user's global config did not run on worktree add")
	}
}

// A merge never overwrites an ignored file of the main checkout: a branch
// that stops ignoring .env and writes one is refused, naming it, and the
// user's .env is as it was.
func TestMergeKeepsAnIgnoredFile(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{".gitignore": ".env\n", "a.txt": "a\n"})
	ctx := context.Background()
	worktreetest.Write(t, r.root, ".env", "SECRET=mine\n")
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, ".gitignore", "")
	worktreetest.Write(t, w.Root, ".env", "SECRET=the branch's\n")
	head := worktreetest.Git(t, r.root, "rev-parse", "HEAD")
	_, _, err := r.svc.Merge(ctx, s, "env")
	var ie *worktree.IgnoredMainError
	if !errors.As(err, &ie) || strings.Join(ie.Files, ",") != ".env" || !strings.Contains(err.Error(), ".env") {
		t.Fatalf("merge over an ignored .env: %v", err)
	}
	if got := read(t, filepath.Join(r.root, ".env")); got != "SECRET=mine\n" {
		t.Errorf(".env is now %q", got)
	}
	if worktreetest.Git(t, r.root, "rev-parse", "HEAD") != head || read(t, filepath.Join(r.root, ".gitignore")) != ".env\n" {
		t.Error("the refused merge changed the main checkout")
	}
	// Moved away, the merge goes through.
	os.Rename(filepath.Join(r.root, ".env"), filepath.Join(r.root, "..", "env.saved"))
	if _, _, err := r.svc.Merge(ctx, s, "env"); err != nil {
		t.Errorf("merge with nothing in its way: %v", err)
	}
}

// A branch that writes a file where the main checkout has an ignored
// folder would delete the folder and its files: refused, naming it.
func TestMergeKeepsAnIgnoredFolder(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{".gitignore": "data/\n", "a.txt": "a\n"})
	ctx := context.Background()
	for _, f := range []string{"data/1.csv", "data/2.csv", "data/3.csv"} {
		worktreetest.Write(t, r.root, f, "x,y\n")
	}
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "data", "now a file\n")
	_, _, err := r.svc.Merge(ctx, s, "data file")
	var ie *worktree.IgnoredMainError
	if !errors.As(err, &ie) || strings.Join(ie.Files, ",") != "data/" {
		t.Fatalf("merge over an ignored folder: %v", err)
	}
	for _, f := range []string{"data/1.csv", "data/2.csv", "data/3.csv"} {
		if got := read(t, filepath.Join(r.root, f)); got != "x,y\n" {
			t.Errorf("%s is now %q", f, got)
		}
	}
}

// The other ways a touched path meets an ignored one: a file inside an
// ignored folder that is already there, an ignored file where the branch
// needs a folder, and an ignored file inside a folder the branch turns
// into a file.
func TestMergeKeepsIgnoredFilesInTheWay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, ignore string
		main, branch []string
		want         string
	}{
		{"inside an ignored folder", "build/\n", []string{"build/out.bin"}, []string{"build/out.bin"}, "build/out.bin"},
		{"a file where a folder goes", "cache\n", []string{"cache"}, []string{"cache/entry"}, "cache"},
		{"a folder of ignored files made a file", "*.log\n", []string{"logs/today.log"}, []string{"logs"}, "logs/today.log"},
		{"a file in the way inside an ignored folder", "build/\n", []string{"build/gen"}, []string{"build/gen/x.go"}, "build/gen"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, map[string]string{".gitignore": c.ignore, "a.txt": "a\n"})
			for _, f := range c.main {
				worktreetest.Write(t, r.root, f, "the user's\n")
			}
			s, w := r.newSession()
			worktreetest.Write(t, w.Root, ".gitignore", "")
			for _, f := range c.branch {
				worktreetest.Write(t, w.Root, f, "the branch's\n")
			}
			_, _, err := r.svc.Merge(context.Background(), s, "in the way")
			var ie *worktree.IgnoredMainError
			if !errors.As(err, &ie) || strings.Join(ie.Files, ",") != c.want {
				t.Fatalf("merge: %v, want a refusal naming %s", err, c.want)
			}
			for _, f := range c.main {
				if got := read(t, filepath.Join(r.root, f)); got != "the user's\n" {
					t.Errorf("%s is now %q", f, got)
				}
			}
		})
	}
}

// A merge that is not a fast-forward, refused by git for staged changes
// in the main checkout, names the staged files.
func TestMergeNamesTheStagedFiles(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "s.txt": "s\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "a.txt", "a from the session\n")
	worktreetest.Write(t, r.root, "b.txt", "b on main\n")
	worktreetest.Git(t, r.root, "commit", "-qam", "main moves")
	worktreetest.Write(t, r.root, "s.txt", "staged\n")
	worktreetest.Git(t, r.root, "add", "s.txt")
	_, _, err := r.svc.Merge(ctx, s, "a")
	var se *worktree.StagedMainError
	if !errors.As(err, &se) || strings.Join(se.Files, ",") != "s.txt" || !strings.Contains(err.Error(), "s.txt") {
		t.Fatalf("merge with a staged file: %v", err)
	}
	if got := worktreetest.Git(t, r.root, "diff", "--cached", "--name-only"); got != "s.txt\n" {
		t.Errorf("staged after the refusal: %q", got)
	}
}

// A submodule's own config is another repository's, which the overrides
// do not cover: pi-tui's status and diff in a checkout with a submodule
// never look into the submodule's files, so its filter does not run.
func TestSubmoduleConfigRunsNothing(t *testing.T) {
	t.Parallel()
	worktreetest.Need(t)
	r := newHost(t)
	base := t.TempDir()
	sub := filepath.Join(base, "sub")
	worktreetest.Repo(t, sub, map[string]string{".gitattributes": "*.txt filter=evil\n", "a.txt": "a\n"})
	r.root = filepath.Join(r.h.Places.Home, "proj")
	worktreetest.Repo(t, r.root, map[string]string{"main.txt": "main\n"})
	worktreetest.Git(t, r.root, "-c", "protocol.file.allow=always", "submodule", "-q", "add", sub, "s")
	worktreetest.Git(t, r.root, "commit", "-qm", "submodule")
	worktreetest.Git(t, r.root, "config", "--file", ".gitmodules", "submodule.s.ignore", "none")
	worktreetest.Git(t, r.root, "commit", "-qam", "ignore none")
	marks := filepath.Join(base, "marks")
	os.MkdirAll(marks, 0o755)
	worktreetest.Git(t, r.root, "config", "--file", filepath.Join(r.root, ".git", "modules", "s", "config"), "filter.evil.clean", "touch '"+filepath.Join(marks, "clean")+"'; cat")
	r.add(r.root)
	s, w := r.newSession()
	// A change in the submodule's file that only its clean filter can
	// tell from the committed one (same size, same old mtime).
	worktreetest.Write(t, filepath.Join(r.root, "s"), "a.txt", "b\n")
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(r.root, "s", "a.txt"), old, old)
	worktreetest.Write(t, w.Root, "main.txt", "from the session\n")
	if _, _, err := r.svc.Status(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.svc.Merge(context.Background(), s, "session"); err != nil {
		t.Fatal(err)
	}
	worktreetest.NoMarks(t, marks)
}

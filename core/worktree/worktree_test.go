package worktree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/paths"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/core/registry"
	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
	"github.com/pi-tui/pi-tui/store"
)

// rig is a host with one project that is a git repository.
type rig struct {
	t    testing.TB
	h    *unit
	root string
	pid  string
	sm   *sessions.Manager
	svc  *worktree.Service
}

func newRig(t testing.TB, files map[string]string) *rig {
	t.Helper()
	r := newHost(t)
	r.root = filepath.Join(r.h.Places.Home, "proj")
	worktreetest.Repo(t, r.root, files)
	r.add(r.root)
	return r
}

// newHost is a rig without a project yet.
func newHost(t testing.TB) *rig {
	t.Helper()
	worktreetest.Need(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	pl := paths.Places{Home: base, AgentDir: filepath.Join(base, "agent"), DataDir: filepath.Join(base, "data")}
	st, err := store.Open(context.Background(), pl.Database(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &unit{Places: pl, Store: st, Projects: registry.NewRegistry(st, pl.AgentDir)}
	return &rig{t: t, h: h, sm: sessions.NewManager(h.Store, sessions.Config{AgentDir: pl.AgentDir}),
		svc: worktree.NewService(h.Store, pl.DataDir, worktree.Options{Env: worktreetest.Env(t)})}
}

// unit is what the package under test is built over: a store, the folders
// and the registry (the composition root is not needed to test it).
type unit struct {
	Places   paths.Places
	Store    *store.Store
	Projects *registry.Registry
}

// add registers root as the rig's project.
func (r *rig) add(root string) {
	r.t.Helper()
	p, _, err := r.h.Projects.Add(context.Background(), root, filepath.Base(root), true)
	if err != nil {
		r.t.Fatal(err)
	}
	r.pid = p.ID
}

func (r *rig) newSession() (*sessions.Session, sessions.Worktree) {
	r.t.Helper()
	s, w, err := r.svc.NewSession(context.Background(), r.sm, r.pid, "", "")
	if err != nil {
		r.t.Fatal(err)
	}
	return s, w
}

func read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTwoSessionsOneFileMergeThenConflict(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"greet.txt": "hello\n", "README.md": "readme\n"})
	ctx := context.Background()
	a, wa := r.newSession()
	b, wb := r.newSession()
	if wa.Dir == wb.Dir || wa.Branch == wb.Branch || !strings.HasPrefix(wa.Branch, "pi/") || wa.Base != "main" {
		t.Fatalf("worktrees = %+v, %+v", wa, wb)
	}
	if !strings.HasPrefix(wa.Dir, filepath.Join(r.h.Places.DataDir, "worktrees", r.pid)) {
		t.Errorf("worktree folder %s is not under the data dir", wa.Dir)
	}
	// The session is listed with its project, and the binding is in its file.
	list, _ := r.sm.List(ctx, r.pid)
	if len(list) != 2 {
		t.Fatalf("listed %d sessions, want 2", len(list))
	}
	reopened, err := sessions.NewManager(r.h.Store, sessions.Config{AgentDir: r.h.Places.AgentDir}).Open(ctx, a.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := reopened.Worktree(); !ok || got.Root != wa.Root || reopened.ProjectID() != r.pid {
		t.Fatalf("reopened binding = %+v %v, project %q", got, ok, reopened.ProjectID())
	}

	worktreetest.Write(t, wa.Root, "greet.txt", "hello from a\n")
	worktreetest.Write(t, wb.Root, "greet.txt", "hello from b\n")
	of := r.svc.Of(ctx, r.pid, list)
	if len(of.Bound) != 2 || len(of.Invalid) != 0 || of.Bound[a.ID()].Root != wa.Root {
		t.Fatalf("Of = %+v, want both sessions verified", of)
	}
	sts := r.svc.Statuses(ctx, of.Bound, 0)
	if st := sts[a.ID()]; !st.Dirty() || st.Stat() != "1 file +1 -1" || st.Branch != wa.Branch {
		t.Fatalf("status of a = %+v (%s)", st, st.Stat())
	}
	if read(t, filepath.Join(r.root, "greet.txt")) != "hello\n" {
		t.Fatal("a worktree's edit reached the main checkout")
	}

	res, _, err := r.svc.Merge(ctx, a, "Greet from a")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Committed || !res.FastForward {
		t.Errorf("merge of a = %+v, want committed and fast-forward", res)
	}
	if got := read(t, filepath.Join(r.root, "greet.txt")); got != "hello from a\n" {
		t.Fatalf("main checkout after merge = %q", got)
	}

	_, _, err = r.svc.Merge(ctx, b, "Greet from b")
	var conflict *worktree.ConflictError
	if !errors.As(err, &conflict) || strings.Join(conflict.Files, ",") != "greet.txt" {
		t.Fatalf("merge of b: %v, want a conflict naming greet.txt", err)
	}
	if !strings.Contains(err.Error(), "greet.txt") || !strings.Contains(err.Error(), "nothing was merged") {
		t.Errorf("conflict sentence = %q", err)
	}
	if st := worktreetest.Git(t, r.root, "status", "--porcelain"); st != "" {
		t.Errorf("main checkout left half-merged:\n%s", st)
	}
	if got := read(t, filepath.Join(r.root, "greet.txt")); got != "hello from a\n" {
		t.Errorf("main checkout after the refused merge = %q", got)
	}
	// b's work is committed on its branch, not lost.
	if got := worktreetest.Git(t, r.root, "show", wb.Branch+":greet.txt"); got != "hello from b\n" {
		t.Errorf("b's branch holds %q", got)
	}
}

func TestMergeMakesAMergeCommitWhenTheBaseMoved(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "a.txt", "a changed\n")
	worktreetest.Write(t, r.root, "b.txt", "b changed\n")
	worktreetest.Git(t, r.root, "commit", "-qam", "b on main")
	res, _, err := r.svc.Merge(ctx, s, "change a")
	if err != nil {
		t.Fatal(err)
	}
	if res.FastForward {
		t.Error("a merge over a moved base was reported as a fast-forward")
	}
	if read(t, filepath.Join(r.root, "a.txt")) != "a changed\n" || read(t, filepath.Join(r.root, "b.txt")) != "b changed\n" {
		t.Error("the merge commit lost a side")
	}
}

func TestMergeRefusesWhenTheMainCheckoutHasChangesItWouldTouch(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "a.txt", "from the session\n")
	worktreetest.Write(t, r.root, "a.txt", "user's own edit\n")
	_, _, err := r.svc.Merge(ctx, s, "session edit")
	var dirty *worktree.DirtyMainError
	if !errors.As(err, &dirty) || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("merge = %v, want a refusal naming a.txt", err)
	}
	if read(t, filepath.Join(r.root, "a.txt")) != "user's own edit\n" {
		t.Error("the user's uncommitted edit was changed")
	}
}

func TestDiscardWithUncommittedChanges(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "new.txt", "new\n")
	st, _, err := r.svc.Status(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(st.Changed, ",") != "new.txt" {
		t.Fatalf("uncommitted = %v, want new.txt (the confirmation names it)", st.Changed)
	}
	if _, err := r.svc.Discard(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree folder still there: %v", err)
	}
	if out := worktreetest.Git(t, r.root, "branch", "--list", w.Branch); out != "" {
		t.Errorf("branch not deleted: %q", out)
	}
	if got, ok := s.Worktree(); !ok || got.Active() {
		t.Errorf("session still bound: %+v", got)
	}
	list, _ := r.sm.List(ctx, r.pid)
	if of := r.svc.Of(ctx, r.pid, list); len(of.Bound)+len(of.Invalid) != 0 {
		t.Errorf("the list still has a worktree: %+v", of)
	}
}

func TestWorktreeFolderDeletedByHand(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "a.txt", "committed work\n")
	worktreetest.Git(t, w.Root, "commit", "-qam", "work")
	if err := os.RemoveAll(w.Dir); err != nil {
		t.Fatal(err)
	}
	st, _, err := r.svc.Status(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Missing || !strings.Contains(st.Fix, "worktree add "+w.Dir+" "+w.Branch) || strings.Contains(st.Fix, "\n") {
		t.Fatalf("status = %+v, want missing with a one-line fix", st)
	}
	if strings.Contains(worktreetest.Git(t, r.root, "worktree", "list"), w.Dir) {
		t.Error("git still lists the vanished worktree (not pruned)")
	}
	// The committed work is on the branch; following the fix brings it back.
	worktreetest.Git(t, r.root, "worktree", "add", w.Dir, w.Branch)
	if read(t, filepath.Join(w.Root, "a.txt")) != "committed work\n" {
		t.Error("the branch lost the committed work")
	}
}

func TestNotAGitCheckout(t *testing.T) {
	t.Parallel()
	r := newHost(t)
	root := filepath.Join(r.h.Places.Home, "plain")
	os.MkdirAll(root, 0o755)
	r.add(root)
	_, _, err := r.svc.NewSession(context.Background(), r.sm, r.pid, "", "")
	if err == nil || !strings.Contains(err.Error(), "is not a git checkout") {
		t.Fatalf("err = %v", err)
	}
	if list, _ := r.sm.List(context.Background(), r.pid); len(list) != 0 {
		t.Errorf("a failed worktree session left %d sessions", len(list))
	}
}

func TestMissingGitSaysSo(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	_, err := worktree.Find(context.Background(), worktree.Options{Env: func(k string) string {
		if k == "PATH" {
			return empty
		}
		return ""
	}})
	if err == nil || !strings.Contains(err.Error(), "git is not installed") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
}

func TestDiffShowsTrackedAndNewFiles(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "one\ntwo\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "a.txt", "one\n2\n")
	worktreetest.Write(t, w.Root, "dir/new.go", "package dir\n")
	d, err := r.svc.Diff(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-two", "+2", "+++ b/dir/new.go", "+package dir"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	st, _, _ := r.svc.Status(ctx, s)
	if st.Stat() != "2 files +2 -1" {
		t.Errorf("stat = %s", st.Stat())
	}
}

// An untracked file whose last line has no line break counts that line,
// as git's diff stat does: "hello\nsecond" is two lines.
func TestStatCountsALastLineWithoutABreak(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "new.txt", "hello\nsecond")
	worktreetest.Write(t, w.Root, "empty.txt", "")
	st, _, err := r.svc.Status(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if st.Stat() != "2 files +2 -0" {
		t.Errorf("stat = %s", st.Stat())
	}
}

func TestProjectInASubfolderWorksInTheSameSubfolder(t *testing.T) {
	t.Parallel()
	r := newHost(t)
	repo := filepath.Join(r.h.Places.Home, "mono")
	worktreetest.Repo(t, repo, map[string]string{"svc/api/main.go": "package main\n"})
	r.add(filepath.Join(repo, "svc/api"))
	_, w := r.newSession()
	if w.Root != filepath.Join(w.Dir, "svc/api") || w.Main != repo {
		t.Errorf("worktree = %+v", w)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "main.go")); err != nil {
		t.Error(err)
	}
}

func writeFile(t testing.TB, dir, rel, body string) { worktreetest.Write(t, dir, rel, body) }

// A repository's own config cannot make pi-tui run code: fsmonitor and
// hooks named in .git/config never run when a worktree session is made,
// read, diffed or merged.
func TestRepositoryConfigRunsNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	mark := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hook, 0o755)
	script := "#!/bin/sh\necho $0 >> " + mark + "\n"
	for _, h := range []string{"post-checkout", "pre-commit", "post-commit", "post-merge", "reference-transaction"} {
		os.WriteFile(filepath.Join(hook, h), []byte(script), 0o755)
	}
	os.WriteFile(filepath.Join(hook, "fsmonitor"), []byte(script), 0o755)
	worktreetest.Git(t, r.root, "config", "core.hooksPath", hook)
	worktreetest.Git(t, r.root, "config", "core.fsmonitor", filepath.Join(hook, "fsmonitor"))
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "b.txt", "b\n")
	if _, _, err := r.svc.Status(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Diff(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.svc.Merge(ctx, s, "take b"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("the repository's config ran: %s", b)
	}
}

// An unnamed session's merge is proposed under its first message's first
// line, as the session list names it (files attached to the message left
// out, a long line clipped); a named session's under its name.
func TestMergeMessageNamesTheSessionAsTheListDoes(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, _ := r.newSession()
	if got := worktree.MergeMessage(s); got != "Work of pi-tui session "+s.ID() {
		t.Errorf("with no message: %q", got)
	}
	first := `<file name="/p/a.txt">` + "\na\n</file>\n" + "Fix the greeting so it names the user and says good morning in the morning\nand more"
	user := map[string]any{}
	for _, text := range []string{first, "second message"} {
		user["message"] = provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: text}}}
		if _, err := s.Append(ctx, sessions.TypeUser, user); err != nil {
			t.Fatal(err)
		}
	}
	want := "Fix the greeting so it names the user and says good morning…"
	if got := worktree.MergeMessage(s); got != want {
		t.Errorf("unnamed: %q, want %q", got, want)
	}
	if err := s.SetTitle(ctx, "Greeting\nfix"); err != nil {
		t.Fatal(err)
	}
	if got := worktree.MergeMessage(s); got != "Greeting" {
		t.Errorf("named: %q", got)
	}
}

// A project relocated after its folder moved keeps its worktree sessions:
// git is told where the main checkout went, and a merge lands there.
func TestWorktreeSessionFollowsARelocatedProject(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	worktreetest.Write(t, w.Root, "b.txt", "b\n")
	moved, s := r.relocate(s)
	if _, _, err := r.svc.Merge(ctx, s, "take b"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(moved, "b.txt")); got != "b\n" {
		t.Errorf("the merge did not land in the moved checkout: %q", got)
	}
	if got, _ := s.Worktree(); got.Main != moved {
		t.Errorf("the session's record names %q, want %q", got.Main, moved)
	}
}

// relocate moves the project's folder and relocates the project there,
// and returns the new folder and session s opened again: its file moved
// with the project, so it is read anew, as the list or the CLI does.
func (r *rig) relocate(s *sessions.Session) (string, *sessions.Session) {
	r.t.Helper()
	ctx := context.Background()
	moved := filepath.Join(filepath.Dir(r.root), "moved")
	if err := os.Rename(r.root, moved); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.h.Projects.Relocate(ctx, r.pid, moved, registry.RelocateOptions{SessionsDir: r.sm.Dir}); err != nil {
		r.t.Fatal(err)
	}
	s.Close()
	s, err := r.sm.Open(ctx, s.ID())
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close() })
	return moved, s
}

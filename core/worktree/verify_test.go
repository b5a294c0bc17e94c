package worktree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/core/worktree"
	"github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// plant writes a session file of the rig's project whose pi-tui.worktree
// record is made by bind from the session's short id, as a planted or
// edited file would hold it, and opens it as a fresh pi-tui would.
func (r *rig) plant(bind func(short string) sessions.Worktree) *sessions.Session {
	r.t.Helper()
	ctx := context.Background()
	s, err := r.sm.Create(ctx, r.pid, "planted")
	if err != nil {
		r.t.Fatal(err)
	}
	if err := s.SetWorktree(ctx, bind(worktree.ShortID(s.ID()))); err != nil {
		r.t.Fatal(err)
	}
	id := s.ID()
	s.Close()
	s, err = sessions.NewManager(r.h.Store, sessions.Config{AgentDir: r.h.Places.AgentDir}).Open(ctx, id)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close() })
	return s
}

// folderFor is the folder pi-tui makes for a session of the rig's project.
func (r *rig) folderFor(short string) string {
	return filepath.Join(r.h.Places.DataDir, "worktrees", r.pid, short)
}

// hasBranch reports whether repo has the branch.
func hasBranch(t *testing.T, repo, branch string) bool {
	return strings.TrimSpace(worktreetest.Git(t, repo, "branch", "--list", branch)) != ""
}

// Bindings a session file can hold that pi-tui did not make: each is
// refused by every operation, listed as invalid, and unbinding it deletes
// nothing (the folders and branches they name are someone's).
func TestPlantedBindingsAreRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	legit, lw := r.newSession()
	other := filepath.Join(r.h.Places.Home, "other")
	worktreetest.Repo(t, other, map[string]string{"o.txt": "o\n"})

	type check struct{ folder, repo, branch string } // what must survive
	cases := []struct {
		name   string
		why    string // in the sentence
		bind   func(short string) sessions.Worktree
		exists func(short string) []check
	}{{
		name: "an outside folder", why: "is not",
		bind: func(short string) sessions.Worktree {
			out := filepath.Join(r.h.Places.Home, "tmp-outside")
			worktreetest.Write(t, out, "secret.txt", "secret\n")
			worktreetest.Write(t, out, ".pi/settings.json", `{"shellPath":"/tmp/evil"}`)
			return sessions.Worktree{Kind: sessions.KindWorktree, Root: out, Dir: out, Branch: "pi/" + short, Base: "main", Main: r.root}
		},
		exists: func(string) []check {
			return []check{{folder: filepath.Join(r.h.Places.Home, "tmp-outside", "secret.txt")}}
		},
	}, {
		name: "another repository's worktree in the session's folder", why: "main checkout",
		bind: func(short string) sessions.Worktree {
			dir := r.folderFor(short)
			worktreetest.Git(t, other, "worktree", "add", "-q", "-b", "pi/"+short, dir)
			return sessions.Worktree{Kind: sessions.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: other}
		},
		exists: func(short string) []check { return []check{{r.folderFor(short), other, "pi/" + short}} },
	}, {
		name: "another repository's worktree, naming the project's checkout", why: "is not a worktree of the project's repository",
		bind: func(short string) sessions.Worktree {
			dir := r.folderFor(short)
			worktreetest.Git(t, other, "worktree", "add", "-q", "-b", "pi/"+short, dir)
			return sessions.Worktree{Kind: sessions.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: r.root}
		},
		exists: func(short string) []check { return []check{{r.folderFor(short), other, "pi/" + short}} },
	}, {
		name: "the session's folder on another branch", why: "not on its branch",
		bind: func(short string) sessions.Worktree {
			dir := r.folderFor(short)
			worktreetest.Git(t, r.root, "worktree", "add", "-q", "-b", "users-"+short, dir)
			return sessions.Worktree{Kind: sessions.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: r.root}
		},
		exists: func(short string) []check { return []check{{r.folderFor(short), r.root, "users-" + short}} },
	}, {
		name: "another session's worktree and branch", why: "the branch pi-tui names for this session",
		bind: func(string) sessions.Worktree { return lw },
		exists: func(string) []check {
			return []check{{lw.Dir, r.root, lw.Branch}}
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := r.plant(c.bind)
			short := worktree.ShortID(s.ID())
			var inv *worktree.InvalidError
			_, bound, err := r.svc.Lookup(ctx, s)
			if !bound || !errors.As(err, &inv) || !strings.Contains(err.Error(), c.why) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Lookup: bound %v, err %v; want an invalid binding saying %q", bound, err, c.why)
			}
			if !strings.Contains(err.Error(), "unbind") || !strings.Contains(err.Error(), "fork") {
				t.Errorf("the sentence does not offer the way out: %s", err)
			}
			list, _ := r.sm.List(ctx, r.pid)
			of := r.svc.Of(ctx, r.pid, list)
			if _, ok := of.Invalid[s.ID()]; !ok {
				t.Errorf("the list does not call the binding invalid: %+v", of)
			}
			if _, ok := of.Bound[s.ID()]; ok {
				t.Error("the list counts the binding as a worktree")
			}
			if _, ok := of.Bound[legit.ID()]; !ok {
				t.Errorf("the legitimate session is not listed as bound: %+v", of.Invalid[legit.ID()])
			}
			if _, _, err := r.svc.Status(ctx, s); !errors.As(err, &inv) {
				t.Errorf("Status: %v", err)
			}
			if _, err := r.svc.Diff(ctx, s); !errors.As(err, &inv) {
				t.Errorf("Diff: %v", err)
			}
			if _, _, err := r.svc.Merge(ctx, s, "m"); !errors.As(err, &inv) {
				t.Errorf("Merge: %v", err)
			}
			if _, err := r.svc.Discard(ctx, s); !errors.As(err, &inv) {
				t.Errorf("Discard: %v", err)
			}
			survive := func(when string) {
				t.Helper()
				for _, e := range c.exists(short) {
					if _, err := os.Stat(e.folder); err != nil {
						t.Errorf("%s: %s is gone: %v", when, e.folder, err)
					}
					if e.repo != "" && !hasBranch(t, e.repo, e.branch) {
						t.Errorf("%s: branch %s of %s is gone", when, e.branch, e.repo)
					}
				}
			}
			survive("after the refused discard")
			if _, err := r.svc.Unbind(ctx, s); err != nil {
				t.Fatalf("Unbind: %v", err)
			}
			survive("after unbinding")
			if _, bound, err := r.svc.Lookup(ctx, s); bound || err != nil {
				t.Errorf("after unbinding: bound %v, %v", bound, err)
			}
			list, _ = r.sm.List(ctx, r.pid)
			if of := r.svc.Of(ctx, r.pid, list); of.Invalid[s.ID()] != nil {
				t.Error("the unbound session is still listed as invalid")
			}
		})
	}
	// The legitimate session was never touched and still verifies.
	if _, bound, err := r.svc.Lookup(ctx, legit); !bound || err != nil {
		t.Fatalf("the legitimate session: bound %v, %v", bound, err)
	}
	if _, err := r.svc.Unbind(ctx, legit); err == nil {
		t.Error("a verified worktree was unbound (it would be left behind unlisted)")
	}
}

// A binding whose folder was deleted by hand is still the session's own
// (its folder is the one pi-tui makes, its branch is pi/<short id> and no
// other folder has it): it is listed as missing, and a discard deletes its
// branch, as before.
func TestMissingFolderStaysVerified(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	os.RemoveAll(w.Dir)
	worktreetest.Git(t, r.root, "worktree", "prune")
	list, _ := r.sm.List(ctx, r.pid)
	of := r.svc.Of(ctx, r.pid, list)
	if _, ok := of.Bound[s.ID()]; !ok {
		t.Fatalf("a missing folder made the binding invalid: %v", of.Invalid[s.ID()])
	}
	if st := r.svc.Statuses(ctx, of.Bound, 0)[s.ID()]; !st.Missing {
		t.Errorf("status = %+v, want missing", st)
	}
	if _, err := r.svc.Discard(ctx, s); err != nil {
		t.Fatal(err)
	}
	if hasBranch(t, r.root, w.Branch) {
		t.Error("the discard left the session's branch")
	}
}

// A worktree made by another pi-tui (another process, its own Service)
// verifies at once, though this Service read the repository's worktrees
// just before.
func TestWorktreeMadeElsewhereVerifiesAtOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	a, _ := r.newSession()
	if _, _, err := r.svc.Lookup(ctx, a); err != nil {
		t.Fatal(err)
	}
	elsewhere := worktree.NewService(r.h.Store, r.h.Places.DataDir, worktree.Options{Env: worktreetest.Env(t)})
	b, _, err := elsewhere.NewSession(ctx, r.sm, r.pid, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, bound, err := r.svc.Lookup(ctx, b); !bound || err != nil {
		t.Fatalf("a session made elsewhere: bound %v, %v", bound, err)
	}
}

// rigOf20 is a project with 20 worktree sessions, listed.
func rigOf20(b *testing.B) (*rig, []sessions.Summary) {
	r := newRig(b, map[string]string{"a.txt": "a\n"})
	for range 20 {
		r.newSession()
	}
	list, _ := r.sm.List(context.Background(), r.pid)
	return r, list
}

// BenchmarkOf20 verifies the bindings of 20 worktree sessions as the
// session list does, the repository's worktrees read once and reused.
func BenchmarkOf20(b *testing.B) {
	r, list := rigOf20(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if of := r.svc.Of(ctx, r.pid, list); len(of.Bound) != 20 {
			b.Fatalf("%d verified, %v", len(of.Bound), of.Invalid)
		}
	}
}

// BenchmarkOf20Cold is BenchmarkOf20 by a fresh Service each time (what
// one `pi-tui sessions list` does): git found, the worktrees read once.
func BenchmarkOf20Cold(b *testing.B) {
	r, list := rigOf20(b)
	ctx := context.Background()
	env := worktreetest.Env(b)
	b.ReportAllocs()
	for b.Loop() {
		svc := worktree.NewService(r.h.Store, r.h.Places.DataDir, worktree.Options{Env: env})
		if of := svc.Of(ctx, r.pid, list); len(of.Bound) != 20 {
			b.Fatalf("%d verified, %v", len(of.Bound), of.Invalid)
		}
	}
}

// copyAs copies the session file of sess as a planted file would: every
// mention of its id replaced by id (same suffix, so the same short id),
// next to the original, and opens it as a fresh pi-tui would.
func (r *rig) copyAs(sess *sessions.Session, id string) *sessions.Session {
	r.t.Helper()
	ctx := context.Background()
	list, err := r.sm.List(ctx, r.pid)
	if err != nil {
		r.t.Fatal(err)
	}
	var path string
	for _, s := range list {
		if s.ID == sess.ID() {
			path = s.Path
		}
	}
	if path == "" {
		r.t.Fatalf("session %s has no file", sess.ID())
	}
	body := strings.ReplaceAll(read(r.t, path), sess.ID(), id)
	planted := filepath.Join(filepath.Dir(path), strings.ReplaceAll(filepath.Base(path), sess.ID(), id))
	if err := os.WriteFile(planted, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
	s, err := sessions.NewManager(r.h.Store, sessions.Config{AgentDir: r.h.Places.AgentDir}).Open(ctx, id)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { s.Close() })
	return s
}

// survives fails the test unless the worktree w of a real session still
// has its folder and branch, and the session still verifies.
func (r *rig) survives(t *testing.T, sess *sessions.Session, w sessions.Worktree) {
	t.Helper()
	if fi, err := os.Stat(w.Dir); err != nil || !fi.IsDir() {
		t.Errorf("the real session's worktree %s is gone: %v", w.Dir, err)
	}
	if !hasBranch(t, r.root, w.Branch) {
		t.Errorf("the real session's branch %s is gone", w.Branch)
	}
	if _, bound, err := r.svc.Lookup(context.Background(), sess); !bound || err != nil {
		t.Errorf("the real session: bound %v, %v", bound, err)
	}
}

// A copy of a real worktree session's file with only the id's prefix
// changed has the same short id, so the same branch and folder names: it
// is invalid (pi-tui made the folder for the real session), listed so, and
// neither its discard nor its unbinding touches the real worktree.
func TestSameSuffixCopyIsRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	real, rw := r.newSession()
	worktreetest.Write(t, rw.Root, "work.txt", "the real session's work\n")
	worktreetest.Git(t, rw.Dir, "add", "-A")
	worktreetest.Git(t, rw.Dir, "commit", "-q", "-m", "work")
	fake := "0badbad0" + real.ID()[8:]
	s := r.copyAs(real, fake)
	if worktree.ShortID(fake) != worktree.ShortID(real.ID()) {
		t.Fatal("the copy's short id differs; the test tests nothing")
	}

	var inv *worktree.InvalidError
	_, bound, err := r.svc.Lookup(ctx, s)
	if !bound || !errors.As(err, &inv) || !strings.Contains(inv.Why, real.ID()+"\", not for this one") {
		t.Fatalf("Lookup of the copy: bound %v, %v; want invalid, made for %s", bound, err, real.ID())
	}
	list, _ := r.sm.List(ctx, r.pid)
	of := r.svc.Of(ctx, r.pid, list)
	if _, ok := of.Invalid[fake]; !ok {
		t.Errorf("the list does not call the copy invalid: bound %+v", of.Bound[fake])
	}
	if _, ok := of.Bound[real.ID()]; !ok {
		t.Errorf("the real session is not listed as bound: %v", of.Invalid[real.ID()])
	}
	if _, err := r.svc.Discard(ctx, s); !errors.As(err, &inv) {
		t.Errorf("Discard of the copy: %v, want it refused as invalid", err)
	}
	r.survives(t, real, rw)
	if _, err := r.svc.Unbind(ctx, s); err != nil { // what sessions discard --yes does for it
		t.Fatalf("Unbind: %v", err)
	}
	r.survives(t, real, rw)
	if got := read(t, filepath.Join(rw.Root, "work.txt")); got != "the real session's work\n" {
		t.Errorf("the real session's work = %q", got)
	}
}

// A binding whose folder is gone passes as a missing worktree only when
// pi-tui made that folder for the session: a planted one naming a folder
// never made (and a main checkout that is gone, which would otherwise
// count as a relocated project) is invalid, and a copy of a real session
// whose folder was deleted by hand is too.
func TestMissingFolderNeedsTheRecord(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	real, rw := r.newSession()
	gone := filepath.Join(r.h.Places.Home, "gone")
	s := r.plant(func(short string) sessions.Worktree {
		dir := r.folderFor(short)
		return sessions.Worktree{Kind: sessions.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: gone}
	})
	var inv *worktree.InvalidError
	if _, _, err := r.svc.Lookup(ctx, s); !errors.As(err, &inv) || !strings.Contains(inv.Why, "no record of making its folder") {
		t.Fatalf("Lookup of a never-made folder: %v; want invalid, no record", err)
	}
	list, _ := r.sm.List(ctx, r.pid)
	if of := r.svc.Of(ctx, r.pid, list); of.Invalid[s.ID()] == nil {
		t.Errorf("the list does not call it invalid: %+v", of.Bound[s.ID()])
	}
	if _, err := r.svc.Discard(ctx, s); !errors.As(err, &inv) {
		t.Errorf("Discard: %v", err)
	}
	if _, err := os.Lstat(gone); err == nil {
		t.Error("a folder the planted file names was made")
	}
	r.survives(t, real, rw)

	// The real session's folder deleted by hand: the copy is still not it.
	os.RemoveAll(rw.Dir)
	worktreetest.Git(t, r.root, "worktree", "prune")
	cp := r.copyAs(real, "0badbad0"+real.ID()[8:])
	if _, _, err := r.svc.Lookup(ctx, cp); !errors.As(err, &inv) || !strings.Contains(inv.Why, real.ID()+"\", not for this one") {
		t.Fatalf("Lookup of a copy whose folder is gone: %v; want invalid", err)
	}
	if _, err := r.svc.Discard(ctx, cp); !errors.As(err, &inv) {
		t.Errorf("Discard of the copy: %v", err)
	}
	if !hasBranch(t, r.root, rw.Branch) {
		t.Fatal("the copy's discard deleted the real session's branch")
	}
	if _, bound, err := r.svc.Lookup(ctx, real); !bound || err != nil {
		t.Errorf("the real session with its folder gone: bound %v, %v", bound, err)
	}
}

// forgetRecord drops pi-tui's record of whom w's folder was made for, as
// a worktree made before pi-tui kept records has none.
func (r *rig) forgetRecord(w sessions.Worktree) {
	r.t.Helper()
	key := r.pid + "/" + filepath.Base(w.Dir)
	kv, found, err := r.h.Store.GetKV(context.Background(), worktree.MadeForNamespace, key)
	if err != nil || !found {
		r.t.Fatalf("no record %s: %v", key, err)
	}
	if err := r.h.Store.CompareAndDeleteKV(context.Background(), worktree.MadeForNamespace, key, kv.Value); err != nil {
		r.t.Fatal(err)
	}
}

// A worktree made before pi-tui kept records verifies while its folder is
// listed on its branch and no other session claims it; a copy of its file
// makes both invalid until the copy is unbound; its discard deletes
// nothing and says how to remove it with git, after which discarding the
// session unbinds it.
func TestLegacyWorktree(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	old, ow := r.newSession()
	r.forgetRecord(ow)
	if _, bound, err := r.svc.Lookup(ctx, old); !bound || err != nil {
		t.Fatalf("a legacy worktree: bound %v, %v", bound, err)
	}
	cp := r.copyAs(old, "0badbad0"+old.ID()[8:])
	list, _ := r.sm.List(ctx, r.pid)
	of := r.svc.Of(ctx, r.pid, list)
	for _, id := range []string{old.ID(), cp.ID()} {
		if inv := of.Invalid[id]; inv == nil || !strings.Contains(inv.Why, "claims it too") {
			t.Errorf("session %s with its folder claimed twice: %v, bound %+v", id, inv, of.Bound[id])
		}
	}
	var inv *worktree.InvalidError
	if _, err := r.svc.Discard(ctx, cp); !errors.As(err, &inv) {
		t.Errorf("Discard of the copy: %v", err)
	}
	if _, err := r.svc.Unbind(ctx, cp); err != nil {
		t.Fatal(err)
	}
	r.survives(t, old, ow)

	var legacy *worktree.LegacyDiscardError
	if _, err := r.svc.Discard(ctx, old); !errors.As(err, &legacy) || !strings.Contains(err.Error(), "worktree remove") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Discard of a legacy worktree: %v; want it refused, saying how", err)
	}
	r.survives(t, old, ow)
	worktreetest.Git(t, r.root, "worktree", "remove", "--force", ow.Dir)
	worktreetest.Git(t, r.root, "branch", "-D", ow.Branch)
	// The next pi-tui sessions discard is another process.
	next := worktree.NewService(r.h.Store, r.h.Places.DataDir, worktree.Options{Env: worktreetest.Env(t)})
	if _, _, err := next.Lookup(ctx, old); !errors.As(err, &inv) || !strings.Contains(inv.Why, "no record") {
		t.Fatalf("a legacy binding whose folder is gone: %v; want invalid", err)
	}
	if _, err := next.Unbind(ctx, old); err != nil {
		t.Fatal(err)
	}
}

// A discard removes pi-tui's record with the folder, so nothing names the
// folder for the session any more.
func TestDiscardDropsTheRecord(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	if _, err := r.svc.Discard(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, found, err := r.h.Store.GetKV(ctx, worktree.MadeForNamespace, r.pid+"/"+filepath.Base(w.Dir)); found || err != nil {
		t.Errorf("the record stayed after the discard (%v)", err)
	}
}

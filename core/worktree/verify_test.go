package worktree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/session"
	"github.com/pi-tui/pi-tui/core/worktree"
	wtt "github.com/pi-tui/pi-tui/core/worktree/worktreetest"
)

// plant writes a session file of the rig's project whose pi-tui.worktree
// record is made by bind from the session's short id, as a planted or
// edited file would hold it, and opens it as a fresh pi-tui would.
func (r *rig) plant(bind func(short string) session.Worktree) *session.Session {
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
	s, err = session.NewManager(r.h.Store, session.Config{AgentDir: r.h.Places.AgentDir}).Open(ctx, id)
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
	return strings.TrimSpace(wtt.Git(t, repo, "branch", "--list", branch)) != ""
}

// Bindings a session file can hold that pi-tui did not make: each is
// refused by every operation, listed as invalid, and unbinding it deletes
// nothing (the folders and branches they name are someone's).
func TestPlantedBindingsAreRefused(t *testing.T) {
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	legit, lw := r.newSession()
	other := filepath.Join(r.h.Places.Home, "other")
	wtt.Repo(t, other, map[string]string{"o.txt": "o\n"})

	type check struct{ folder, repo, branch string } // what must survive
	cases := []struct {
		name   string
		why    string // in the sentence
		bind   func(short string) session.Worktree
		exists func(short string) []check
	}{{
		name: "an outside folder", why: "is not",
		bind: func(short string) session.Worktree {
			out := filepath.Join(r.h.Places.Home, "tmp-outside")
			wtt.Write(t, out, "secret.txt", "secret\n")
			wtt.Write(t, out, ".pi/settings.json", `{"shellPath":"/tmp/evil"}`)
			return session.Worktree{Kind: session.KindWorktree, Root: out, Dir: out, Branch: "pi/" + short, Base: "main", Main: r.root}
		},
		exists: func(string) []check {
			return []check{{folder: filepath.Join(r.h.Places.Home, "tmp-outside", "secret.txt")}}
		},
	}, {
		name: "another repository's worktree in the session's folder", why: "main checkout",
		bind: func(short string) session.Worktree {
			dir := r.folderFor(short)
			wtt.Git(t, other, "worktree", "add", "-q", "-b", "pi/"+short, dir)
			return session.Worktree{Kind: session.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: other}
		},
		exists: func(short string) []check { return []check{{r.folderFor(short), other, "pi/" + short}} },
	}, {
		name: "another repository's worktree, naming the project's checkout", why: "is not a worktree of the project's repository",
		bind: func(short string) session.Worktree {
			dir := r.folderFor(short)
			wtt.Git(t, other, "worktree", "add", "-q", "-b", "pi/"+short, dir)
			return session.Worktree{Kind: session.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: r.root}
		},
		exists: func(short string) []check { return []check{{r.folderFor(short), other, "pi/" + short}} },
	}, {
		name: "the session's folder on another branch", why: "not on its branch",
		bind: func(short string) session.Worktree {
			dir := r.folderFor(short)
			wtt.Git(t, r.root, "worktree", "add", "-q", "-b", "users-"+short, dir)
			return session.Worktree{Kind: session.KindWorktree, Root: dir, Dir: dir, Branch: "pi/" + short, Base: "main", Main: r.root}
		},
		exists: func(short string) []check { return []check{{r.folderFor(short), r.root, "users-" + short}} },
	}, {
		name: "another session's worktree and branch", why: "the branch pi-tui names for this session",
		bind: func(string) session.Worktree { return lw },
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
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	s, w := r.newSession()
	os.RemoveAll(w.Dir)
	wtt.Git(t, r.root, "worktree", "prune")
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
	r := newRig(t, map[string]string{"a.txt": "a\n"})
	ctx := context.Background()
	a, _ := r.newSession()
	if _, _, err := r.svc.Lookup(ctx, a); err != nil {
		t.Fatal(err)
	}
	elsewhere := worktree.NewService(r.h.Store, r.h.Places.DataDir, worktree.Options{Env: wtt.Env(t)})
	b, _, err := elsewhere.NewSession(ctx, r.sm, r.pid, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, bound, err := r.svc.Lookup(ctx, b); !bound || err != nil {
		t.Fatalf("a session made elsewhere: bound %v, %v", bound, err)
	}
}

// rigOf20 is a project with 20 worktree sessions, listed.
func rigOf20(b *testing.B) (*rig, []session.Summary) {
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
	env := wtt.Env(b)
	b.ReportAllocs()
	for b.Loop() {
		svc := worktree.NewService(r.h.Store, r.h.Places.DataDir, worktree.Options{Env: env})
		if of := svc.Of(ctx, r.pid, list); len(of.Bound) != 20 {
			b.Fatalf("%d verified, %v", len(of.Bound), of.Invalid)
		}
	}
}

package worktree

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/internal/safetext"
)

// A session file's pi-tui.worktree record moves the session's tools, bash
// and settings into another folder, and names the branch a discard
// deletes. A file can be planted or edited, so the record counts only when
// pi-tui can verify it as one of its own worktrees (ADR 0032): the folder
// pi-tui makes for the session under the data dir, a worktree of the
// project's own repository (git worktree list in the project's checkout),
// on the branch pi/<short id of the session>, and made for this very
// session: the short id is only 8 characters of the id, which a planted
// file can copy, so the store's record of whom NewSession made the folder
// for (madefor.go) must name the session's full id. A worktree made
// before pi-tui kept that record verifies only while its folder is listed
// on its branch and no other session claims it (legacy). Everything that
// reads a binding goes through Lookup or Of, which verify it here.

// InvalidError is a binding pi-tui cannot verify. The session then works in
// nothing (no tools, no prompts) until the user unbinds it (Unbind: it
// works in the project's main checkout, and nothing is deleted) or forks
// it. Nothing is ever deleted for an invalid binding.
type InvalidError struct {
	SessionID string
	W         sessions.Worktree // the record as the file has it
	Why       string            // the check that failed, one clause
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("the worktree binding of session %s is invalid: %s; the session works in nothing (no tools, no prompts) until you unbind it "+
		"(X in the session list, or pi-tui sessions discard %s: nothing is deleted, and it works in the project's main checkout from then on) or fork it (/fork)",
		e.SessionID, e.Why, e.SessionID)
}

// Sessions are a project's worktree sessions as Of verified them.
type Sessions struct {
	Bound   map[string]sessions.Worktree // verified bindings, by session id
	Invalid map[string]*InvalidError     // bindings that cannot be verified
}

// viewTTL is how long one reading of a repository's worktrees is reused:
// listing many sessions costs two git runs per project, not per session.
// Reads that miss (a worktree made since by another pi-tui) read again.
const viewTTL = 5 * time.Second

// repoView is what git says of the repository holding a project root.
type repoView struct {
	top    string // the checkout's top, canonical
	prefix string // the project root's path inside it ("" at the top)
	trees  map[string]listedTree
	at     time.Time
}

// listedTree is one entry of git worktree list.
type listedTree struct {
	branch string // "" when detached or bare
}

// view reads (or reuses) the worktrees of the repository holding the
// project root. A view read before since is read again when fresh is set.
func (s *Service) view(ctx context.Context, g *Git, root string, since time.Time, fresh bool) (repoView, error) {
	s.mu.Lock()
	v, ok := s.views[root]
	s.mu.Unlock()
	if ok && time.Since(v.at) < viewTTL && (!fresh || !v.at.Before(since)) {
		return v, nil
	}
	at := time.Now()
	top, prefix, err := g.topAndPrefix(ctx, root)
	if err != nil {
		return repoView{}, fmt.Errorf("the project folder %s is not a git checkout", safetext.Label(root))
	}
	v = repoView{top: canonical(top), prefix: prefix, trees: map[string]listedTree{}, at: at}
	args, sep := []string{"worktree", "list", "--porcelain"}, "\n"
	if g.atLeast(2, 36) {
		args, sep = append(args, "-z"), "\x00" // a path may hold a line break
	}
	out, err := g.run(ctx, v.top, args...)
	if err != nil {
		return repoView{}, err
	}
	for path, t := range parseWorktreeList(out, sep) {
		v.trees[canonical(path)] = t
	}
	s.mu.Lock()
	s.views[root] = v
	s.mu.Unlock()
	return v, nil
}

// parseWorktreeList reads git worktree list --porcelain: entries of
// "worktree <path>", "branch refs/heads/<name>" (or "detached", "bare",
// "locked", "prunable" lines), an empty field after each.
func parseWorktreeList(out, sep string) map[string]listedTree {
	trees := map[string]listedTree{}
	path, t := "", listedTree{}
	for _, f := range strings.Split(out, sep) {
		switch {
		case f == "":
			if path != "" {
				trees[path] = t
			}
			path, t = "", listedTree{}
		case strings.HasPrefix(f, "worktree "):
			path = strings.TrimPrefix(f, "worktree ")
		case strings.HasPrefix(f, "branch refs/heads/"):
			t.branch = strings.TrimPrefix(f, "branch refs/heads/")
		}
	}
	if path != "" {
		trees[path] = t
	}
	return trees
}

// dropViews forgets every reading of worktrees (one was added, removed or
// repaired).
func (s *Service) dropViews() {
	s.mu.Lock()
	clear(s.views)
	s.mu.Unlock()
}

// verify checks a binding of session id of project pid (see the top of
// this file) and returns it with Main set to the project's checkout.
// relocated says that the record names a main checkout that is gone and
// the project's checkout is elsewhere now (a relocated project, which
// follow catches up with). others are the other session files of the
// project that a listing read (nil for one session): with the index's
// rows, they are the claims a legacy binding must not share its folder
// with. Every failure is an *InvalidError.
func (s *Service) verify(ctx context.Context, pid, id string, w sessions.Worktree, since time.Time, others []sessions.Summary) (v sessions.Worktree, relocated bool, err error) {
	bad := func(format string, args ...any) (sessions.Worktree, bool, error) {
		return w, false, &InvalidError{SessionID: id, W: w, Why: fmt.Sprintf(format, args...)}
	}
	short := ShortID(id)
	switch {
	case pid == "":
		return bad("the session belongs to no project")
	case w.Branch != "pi/"+short:
		return bad("its branch %s is not pi/%s, the branch pi-tui names for this session", safetext.Label(w.Branch), short)
	case !plainBranch(w.Base):
		return bad("its base %s is not a branch name", safetext.Label(w.Base))
	case !filepath.IsAbs(w.Dir) || !filepath.IsAbs(w.Root) || !filepath.IsAbs(w.Main):
		return bad("it names a folder by a relative path")
	}
	want := canonical(filepath.Join(s.dataDir, "worktrees", pid, short))
	dir := canonical(w.Dir)
	if dir != want {
		return bad("its folder %s is not %s, the one pi-tui makes for this session", safetext.Label(w.Dir), safetext.Label(want))
	}
	made, recorded, err := s.madeForOf(ctx, pid, short)
	if err != nil {
		return bad("pi-tui's record of the session its folder was made for cannot be read (%v)", err)
	}
	if recorded && (made.SessionID != id || made.ProjectID != pid) {
		return bad("pi-tui made its folder %s for session %s, not for this one", safetext.Label(w.Dir), safetext.Label(made.SessionID))
	}
	root, _, err := s.st.ProjectBinding(ctx, pid)
	if err != nil {
		return bad("its project cannot be read (%v)", err)
	}
	g, err := s.Git(ctx)
	if err != nil {
		return bad("git cannot check it (%v)", err)
	}
	view, err := s.view(ctx, g, root, since, false)
	if err != nil {
		return bad("%v", err)
	}
	t, listed := view.trees[dir]
	if !listed || t.branch != w.Branch {
		// Made or switched since the view was read (another pi-tui, the
		// user's git): read it again, once per since.
		if view, err = s.view(ctx, g, root, since, true); err != nil {
			return bad("%v", err)
		}
		t, listed = view.trees[dir]
	}
	if r := canonical(w.Root); r != canonical(filepath.Join(dir, view.prefix)) || !fsutil.Within(dir, r) {
		return bad("its root %s is not the project's folder in its worktree", safetext.Label(w.Root))
	}
	if m := canonical(w.Main); m != view.top {
		if _, err := os.Stat(w.Main); err == nil {
			return bad("it names %s as its main checkout, but the project's checkout is %s", safetext.Label(w.Main), safetext.Label(view.top))
		}
		relocated = true
	}
	switch {
	case listed && t.branch != w.Branch:
		return bad("its folder is a worktree on %s, not on its branch %s", branchName(t.branch), w.Branch)
	case !listed && !recorded:
		return bad("pi-tui has no record of making its folder %s for this session, and the folder is not a worktree of the project's repository", safetext.Label(w.Dir))
	case !recorded:
		if ids := s.claims(ctx, id, dir, others); len(ids) > 0 {
			return bad("pi-tui has no record of making its folder %s for this session (it was made before pi-tui kept one), and session %s claims it too",
				safetext.Label(w.Dir), safetext.Label(strings.Join(ids, ", ")))
		}
	case !listed:
		if _, err := os.Lstat(w.Dir); err == nil {
			return bad("%s is not a worktree of the project's repository %s", safetext.Label(w.Dir), safetext.Label(view.top))
		}
		// The folder was deleted by hand and git forgot it (pruned): the
		// branch is the session's own unless another folder has it.
		for p, other := range view.trees {
			if other.branch == w.Branch {
				return bad("its branch %s is checked out in %s, not in its folder", w.Branch, safetext.Label(p))
			}
		}
	}
	w.Main = view.top
	return w, relocated, nil
}

// claims lists the other sessions whose binding names the folder dir:
// those of the listing and those of the index (sessions looked up one by
// one). Used only to refuse, so a stale index row can only make a legacy
// binding invalid, never make one count.
func (s *Service) claims(ctx context.Context, id, dir string, others []sessions.Summary) []string {
	seen := map[string]bool{}
	for _, o := range others {
		if o.ID != id && o.Worktree.Active() && canonical(o.Worktree.Dir) == dir {
			seen[o.ID] = true
		}
	}
	if rows, err := s.st.KVNamespace(ctx, Namespace); err == nil {
		for sid, raw := range rows {
			var r Record
			if sid != id && json.Unmarshal([]byte(raw), &r) == nil && r.Active() && canonical(r.Dir) == dir {
				seen[sid] = true
			}
		}
	}
	ids := slices.Sorted(maps.Keys(seen))
	return ids
}

// plainBranch reports whether b can be a branch name pi-tui passes to git
// (as refs/heads/b): no option, no control character, space or "..".
func plainBranch(b string) bool {
	if b == "" || strings.HasPrefix(b, "-") || strings.Contains(b, "..") {
		return false
	}
	return !strings.ContainsFunc(b, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || r == '\\' })
}

func branchName(b string) string {
	if b == "" {
		return "a detached HEAD"
	}
	return safetext.Label(b)
}

// canonical resolves the links of the deepest part of p that exists, so a
// folder compares with git's (canonical) paths whether it exists or not.
func canonical(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(canonical(parent), filepath.Base(p))
}

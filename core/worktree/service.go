package worktree

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/core/sessions"
	"github.com/pi-tui/pi-tui/internal/safetext"
	"github.com/pi-tui/pi-tui/store"
)

// Namespace is the kv namespace indexing worktree sessions: key = session
// id, value = the session's Record as JSON. The session file holds the
// binding itself (session.Worktree); this index only lets a branch name
// find its session (ByBranch). Nothing trusts it: bindings are verified
// (verify.go) wherever they are used.
const Namespace = "sessionWorktree"

// Record is one row of the index.
type Record struct {
	ProjectID string `json:"projectId"`
	sessions.Worktree
}

// Service makes, lists, merges and discards worktree sessions. git is
// looked up (and its version checked) once, on first use.
type Service struct {
	st      *store.Store
	dataDir string
	opts    Options

	once   sync.Once
	git    *Git
	gitErr error

	mu    sync.Mutex
	cache map[string]cachedStatus // session id → last status
	views map[string]repoView     // project root → its repository's worktrees
}

type cachedStatus struct {
	st Status
	at time.Time
}

// NewService returns a Service keeping worktrees under
// <dataDir>/worktrees/<project-id>/<short-id>.
func NewService(st *store.Store, dataDir string, opts Options) *Service {
	return &Service{st: st, dataDir: dataDir, opts: opts, cache: map[string]cachedStatus{}, views: map[string]repoView{}}
}

// Git returns the user's git, found once.
func (s *Service) Git(ctx context.Context) (*Git, error) {
	s.once.Do(func() { s.git, s.gitErr = Find(ctx, s.opts) })
	return s.git, s.gitErr
}

// ShortID is the part of a session id that names its branch and folder:
// its last 8 characters, which are random (pi's ids are UUIDv7s, whose
// first digits are the creation time and alike for sessions made
// together).
func ShortID(sessionID string) string {
	id := strings.ReplaceAll(sessionID, "-", "")
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// SessionCreator creates a project's session (core/sessions.Manager):
// all NewSession asks of the session store, so a program passes the store
// it was given without holding its concrete type.
type SessionCreator interface {
	Create(ctx context.Context, projectID, title string) (*sessions.Session, error)
}

// NewSession creates a session of the project in a worktree of its own,
// on a new branch pi/<short-id> from base ("" = the branch checked out in
// the project). The session file is written at once with the binding.
// The record of whom the folder is made for (MadeForNamespace) is written
// before the folder is made, so no worktree pi-tui makes is without one.
func (s *Service) NewSession(ctx context.Context, sm SessionCreator, projectID, base, title string) (*sessions.Session, sessions.Worktree, error) {
	g, err := s.Git(ctx)
	if err != nil {
		return nil, sessions.Worktree{}, err
	}
	root, _, err := s.st.ProjectBinding(ctx, projectID)
	if err != nil {
		return nil, sessions.Worktree{}, err
	}
	if _, err := g.Checkout(ctx, root); err != nil {
		return nil, sessions.Worktree{}, err
	}
	sess, err := sm.Create(ctx, projectID, title)
	if err != nil {
		return nil, sessions.Worktree{}, err
	}
	short := ShortID(sess.ID())
	if err := s.recordMadeFor(ctx, projectID, short, sess.ID()); err != nil {
		sess.Close() // nothing was written
		return nil, sessions.Worktree{}, err
	}
	dir := filepath.Join(s.dataDir, "worktrees", projectID, short)
	w, err := g.Add(ctx, root, dir, "pi/"+short, base)
	s.dropViews()
	if err != nil {
		_ = s.dropMadeFor(ctx, projectID, short, sess.ID())
		sess.Close() // nothing was written
		return nil, sessions.Worktree{}, err
	}
	// The header names the worktree, as pi writes it for a session begun
	// there: pi, given the file, works in the folder its header names.
	err = sess.SetCwd(ctx, w.Root)
	if err == nil {
		err = sess.SetWorktree(ctx, w)
	}
	if err != nil {
		_ = g.Discard(ctx, w) // the branch is new and empty: nothing is lost
		_ = s.dropMadeFor(ctx, projectID, short, sess.ID())
		sess.Close()
		return nil, sessions.Worktree{}, err
	}
	// The index only speeds up listings (the session file holds the
	// binding): a failure to write it costs nothing the caller must undo.
	_ = s.index(ctx, projectID, sess.ID(), w)
	return sess, w, nil
}

// index writes (or, with w inactive, removes) a session's index row.
// Two writers of one row (a discard, and a launch's Reconcile at the same
// moment) write what the same session file says, so a conflict is met by
// reading the row again, not reported: the discard did happen.
func (s *Service) index(ctx context.Context, projectID, sessionID string, w sessions.Worktree) error {
	var err error
	// Each conflict means another writer's write went in, so this ends
	// as soon as they pause; the bound is for a pathological stream.
	for range 64 {
		if err = s.indexOnce(ctx, projectID, sessionID, w); !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return err
}

func (s *Service) indexOnce(ctx context.Context, projectID, sessionID string, w sessions.Worktree) error {
	cur, found, err := s.st.GetKV(ctx, Namespace, sessionID)
	if err != nil {
		return err
	}
	if !w.Active() {
		if !found {
			return nil
		}
		return s.st.CompareAndDeleteKV(ctx, Namespace, sessionID, cur.Value)
	}
	raw, _ := json.Marshal(Record{ProjectID: projectID, Worktree: w})
	if found && cur.Value == string(raw) {
		return nil // in line already: nothing to write
	}
	var expected *string
	if found {
		expected = &cur.Value
	}
	return s.st.CompareAndSwapKV(ctx, Namespace, sessionID, expected, string(raw))
}

// Of verifies the worktree bindings of a project's sessions as a listing
// read them from their files (session.Manager.List): the ones pi-tui can
// verify are Bound, the others Invalid. The repository's worktrees are
// read once for all of them (and reused for a few seconds).
func (s *Service) Of(ctx context.Context, projectID string, sums []sessions.Summary) Sessions {
	out := Sessions{Bound: map[string]sessions.Worktree{}, Invalid: map[string]*InvalidError{}}
	since := time.Now()
	for _, sum := range sums {
		if !sum.Worktree.Active() {
			continue
		}
		w, _, err := s.verify(ctx, projectID, sum.ID, sum.Worktree, since, sums)
		if inv := (*InvalidError)(nil); errors.As(err, &inv) {
			out.Invalid[sum.ID] = inv
			continue
		}
		out.Bound[sum.ID] = w
	}
	return out
}

// ByBranch returns the id of the worktree session whose branch is ref,
// given as the branch ("pi/00f08c66") or its short id ("00f08c66"), from
// the index of every project; found is false when no session has it.
func (s *Service) ByBranch(ctx context.Context, ref string) (id string, found bool, err error) {
	if ref == "" {
		return "", false, nil
	}
	rows, err := s.st.KVNamespace(ctx, Namespace)
	if err != nil {
		return "", false, err
	}
	var ids []string
	for sid, v := range rows {
		var r Record
		if json.Unmarshal([]byte(v), &r) == nil && r.Active() && (r.Branch == ref || r.Branch == "pi/"+ref) {
			ids = append(ids, sid)
		}
	}
	switch len(ids) {
	case 0:
		return "", false, nil
	case 1:
		return ids[0], true, nil
	}
	slices.Sort(ids)
	return "", false, fmt.Errorf("%s is the branch of several sessions (%s): give the session's id", ref, strings.Join(ids, ", "))
}

// Lookup returns a session's worktree from its file (the binding's home),
// verified. It writes nothing (ADR 0084): a relocated project's binding
// comes back with Main set to the project's checkout now, but git and the
// session file are told only by Reconcile. bound is false when the
// session works in its project; err is an *InvalidError when the file
// binds it to a worktree pi-tui cannot verify, which it must then not
// work in.
func (s *Service) Lookup(ctx context.Context, sess *sessions.Session) (w sessions.Worktree, bound bool, err error) {
	w, bound, _, err = s.lookup(ctx, sess)
	return w, bound, err
}

// Reconcile is Lookup for a caller about to work in the worktree (a
// runtime's launch, a merge): it also brings what else records the
// binding in line with the session file, writing where they differ. The
// index row is written from the file's record, and a verified binding of
// a relocated project is caught up with (follow: git worktree repair,
// and the file names the new checkout).
func (s *Service) Reconcile(ctx context.Context, sess *sessions.Session) (w sessions.Worktree, bound bool, err error) {
	if rec, ok := sess.Worktree(); ok && sess.ProjectID() != "" {
		_ = s.index(ctx, sess.ProjectID(), sess.ID(), rec)
	}
	w, bound, relocated, err := s.lookup(ctx, sess)
	if err == nil && relocated {
		w = s.follow(ctx, sess, w)
	}
	return w, bound, err
}

// lookup verifies a session's binding; relocated says its project's
// checkout moved since the file named it.
func (s *Service) lookup(ctx context.Context, sess *sessions.Session) (w sessions.Worktree, bound, relocated bool, err error) {
	w, ok := sess.Worktree()
	if !ok || !w.Active() {
		return w, false, false, nil
	}
	v, relocated, err := s.verify(ctx, sess.ProjectID(), sess.ID(), w, time.Now(), nil)
	if err != nil {
		return w, true, false, err
	}
	return v, true, relocated, nil
}

// Statuses reads the status of several worktrees at once, in parallel;
// a status read less than maxAge ago is reused. Failures are left out.
// wts are verified bindings (Of's Bound, Lookup's): git runs in them.
func (s *Service) Statuses(ctx context.Context, wts map[string]sessions.Worktree, maxAge time.Duration) map[string]Status {
	out := make(map[string]Status, len(wts))
	g, err := s.Git(ctx)
	if err != nil {
		return out
	}
	now := time.Now()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, 8)
	)
	for id, w := range wts {
		s.mu.Lock()
		c, hit := s.cache[id]
		s.mu.Unlock()
		if hit && now.Sub(c.at) < maxAge {
			out[id] = c.st
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st, err := g.Status(ctx, w)
			if err != nil {
				return
			}
			mu.Lock()
			out[id] = st
			mu.Unlock()
			s.mu.Lock()
			s.cache[id] = cachedStatus{st: st, at: now}
			s.mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// forget drops a session's cached status (its worktree changed).
func (s *Service) forget(id string) {
	s.mu.Lock()
	delete(s.cache, id)
	s.mu.Unlock()
}

// bound returns a session's verified worktree and git, or why it has
// none, for a git command run in it: the binding is reconciled first, so
// git finds a relocated project's checkout.
func (s *Service) bound(ctx context.Context, sess *sessions.Session) (sessions.Worktree, *Git, error) {
	w, ok, err := s.Reconcile(ctx, sess)
	if err != nil {
		return w, nil, err
	}
	if !ok {
		return w, nil, fmt.Errorf("session %s has no worktree (start one with w in the session list or prompt --worktree)", sess.ID())
	}
	g, err := s.Git(ctx)
	if err != nil {
		return w, nil, err
	}
	return w, g, nil
}

// follow catches up with a project that was relocated (its main checkout
// moved, pi-tui projects relocate): w is verified, with Main the project's
// checkout now; git is told where it is (git worktree repair) and the
// session's record names it, so merges land there.
func (s *Service) follow(ctx context.Context, sess *sessions.Session, w sessions.Worktree) sessions.Worktree {
	g, err := s.Git(ctx)
	if err != nil {
		return w
	}
	if _, err := g.run(ctx, w.Main, "worktree", "repair", w.Dir); err != nil {
		return w
	}
	s.dropViews()
	if err := sess.SetWorktree(ctx, w); err == nil {
		_ = s.index(ctx, sess.ProjectID(), sess.ID(), w)
	}
	s.forget(sess.ID())
	return w
}

// Status reads one session's worktree status.
func (s *Service) Status(ctx context.Context, sess *sessions.Session) (Status, sessions.Worktree, error) {
	w, g, err := s.bound(ctx, sess)
	if err != nil {
		return Status{}, w, err
	}
	st, err := g.Status(ctx, w)
	if err == nil && !st.Missing {
		if n, err := g.Ahead(ctx, w); err == nil {
			st.Ahead = n
		}
	}
	return st, w, err
}

// Diff returns a session's worktree diff against its base.
func (s *Service) Diff(ctx context.Context, sess *sessions.Session) (string, error) {
	w, g, err := s.bound(ctx, sess)
	if err != nil {
		return "", err
	}
	return g.Diff(ctx, w)
}

// Merge commits and merges a session's worktree into its base branch. The
// worktree stays: the session may go on, or be discarded.
func (s *Service) Merge(ctx context.Context, sess *sessions.Session, message string) (MergeResult, sessions.Worktree, error) {
	w, g, err := s.bound(ctx, sess)
	if err != nil {
		return MergeResult{}, w, err
	}
	defer s.forget(sess.ID())
	res, err := g.Merge(ctx, w, message)
	return res, w, err
}

// Discard removes a session's worktree and deletes its branch; the session
// itself stays, working in the project root from then on. The caller has
// confirmed (naming uncommitted changes, see Status). Only a folder and
// branch pi-tui's record says it made for this very session are deleted:
// a legacy worktree (made before the record) is left for the user to
// remove with git (LegacyDiscardError).
func (s *Service) Discard(ctx context.Context, sess *sessions.Session) (sessions.Worktree, error) {
	w, g, err := s.bound(ctx, sess)
	if err != nil {
		return w, err
	}
	short := ShortID(sess.ID())
	made, recorded, err := s.madeForOf(ctx, sess.ProjectID(), short)
	if err != nil {
		return w, err
	}
	if !recorded || made.SessionID != sess.ID() || made.ProjectID != sess.ProjectID() {
		return w, &LegacyDiscardError{SessionID: sess.ID(), W: w}
	}
	defer s.forget(sess.ID())
	defer s.dropViews()
	if err := g.Discard(ctx, w); err != nil {
		return w, err
	}
	w.Discarded = true
	if err := sess.SetWorktree(ctx, w); err != nil {
		return w, err
	}
	_ = s.dropMadeFor(ctx, sess.ProjectID(), short, sess.ID()) // the folder and branch are gone
	return w, s.index(ctx, sess.ProjectID(), sess.ID(), w)
}

// LegacyDiscardError refuses to discard a worktree pi-tui has no record of
// making for the session (made before it kept one, ADR 0032): another
// session file may claim the same folder, so nothing is deleted. Once the
// user has removed the folder with git, the binding no longer verifies and
// unbinding it drops it.
type LegacyDiscardError struct {
	SessionID string
	W         sessions.Worktree
}

func (e *LegacyDiscardError) Error() string {
	return fmt.Sprintf("pi-tui has no record of making the worktree %s for session %s (it was made before pi-tui kept one), so discard deletes nothing: "+
		"remove it with git -C %s worktree remove --force %s and git -C %s branch -D %s, then discard the session again to unbind it",
		safetext.Label(e.W.Dir), e.SessionID, safetext.Label(e.W.Main), safetext.Label(e.W.Dir), safetext.Label(e.W.Main), safetext.Label(e.W.Branch))
}

// Unbind drops a binding pi-tui cannot verify: the session works in the
// project's main checkout from then on, and no folder or branch is
// touched (they may be anyone's). A verified worktree is not unbound: it
// is merged or discarded, so it is never left behind unlisted.
func (s *Service) Unbind(ctx context.Context, sess *sessions.Session) (sessions.Worktree, error) {
	w, bound, err := s.Lookup(ctx, sess)
	switch {
	case !bound:
		return w, fmt.Errorf("session %s has no worktree binding to unbind", sess.ID())
	case err == nil:
		return w, fmt.Errorf("session %s works in a verified worktree (branch %s): merge or discard it instead", sess.ID(), w.Branch)
	}
	if err := sess.SetWorktree(ctx, sessions.Worktree{}); err != nil {
		return w, err
	}
	s.forget(sess.ID())
	return w, s.index(ctx, sess.ProjectID(), sess.ID(), sessions.Worktree{})
}

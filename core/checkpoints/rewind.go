package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/internal/atomicfile"
)

// target is one file an undo or redo writes: what it must hold now, and
// what it gets.
type target struct {
	root, path string
	shown      string // the path as the programs show it (record.shown)
	changes    []int
	expect     *version
	want       *version
	content    []byte // want's content (a link's target for a link)
}

func (s *Store) undo(ctx context.Context, info SessionInfo, u Undo) (UndoResult, error) {
	verb := "undo"
	if u.Redo {
		verb = "redo"
	}
	j := s.journalFor(info.ID)
	j.mu.Lock()
	defer j.mu.Unlock()
	recs, err := readJournal(j.path)
	if err != nil {
		return UndoResult{}, err
	}
	changes := replay(info.ID, recs)
	byN := map[int]record{}
	for _, r := range recs {
		if r.Type == "change" && r.Before != nil && r.After != nil {
			if _, dup := byN[r.N]; !dup {
				byN[r.N] = r
			}
		}
	}
	state := map[int]string{}
	for _, c := range changes {
		state[c.N] = c.State
	}
	from := StateActive
	if u.Redo {
		from = StateUndone
	}
	sel, err := selectChanges(info, u, changes, from, verb)
	if err != nil {
		return UndoResult{}, err
	}
	targets, conflicts := s.plan(byN, state, sel, u.Redo, info.Folders)
	if len(conflicts) == 0 || u.Force {
		conflicts = append(conflicts, s.guard(targets, u.Redo)...)
	}
	if len(conflicts) > 0 {
		ce := &ConflictError{Conflicts: conflicts}
		if !u.Force || !ce.Forceable() {
			return UndoResult{}, ce
		}
	}
	if err := ctx.Err(); err != nil {
		return UndoResult{}, err
	}
	done, files, werr := s.write(targets, u.Force)
	var res UndoResult
	if len(done) > 0 {
		slices.Sort(done)
		if err := j.append(record{Session: info.ID}, record{Type: verb, Changes: done, Forced: u.Force && len(conflicts) > 0, At: time.Now().UnixMilli()}); err != nil {
			return UndoResult{}, fmt.Errorf("the files were written but the %s could not be recorded: %w", verb, err)
		}
		res = UndoResult{Changes: done, Files: files}
	}
	if werr != nil {
		if len(files) > 0 {
			return res, fmt.Errorf("%s stopped: %w (already written: %s)", verb, werr, strings.Join(files, ", "))
		}
		return res, fmt.Errorf("%s stopped: %w; nothing was changed", verb, werr)
	}
	return res, nil
}

// selectChanges picks the changes an Undo names.
func selectChanges(info SessionInfo, u Undo, changes []Change, from, verb string) ([]int, error) {
	var sel []int
	if u.To != "" {
		if len(u.Changes) > 0 {
			return nil, errors.New("name changes or an entry, not both")
		}
		pos := slices.Index(info.Order, u.To)
		if pos < 0 {
			return nil, fmt.Errorf("session %s has no entry %s", info.ID, u.To)
		}
		posOf := make(map[string]int, len(info.Order))
		for i, id := range info.Order {
			posOf[id] = i
		}
		for _, c := range changes {
			p, ok := posOf[c.Entry]
			if c.State == from && (!ok || p >= pos) {
				sel = append(sel, c.N)
			}
		}
		if len(sel) == 0 {
			return nil, fmt.Errorf("nothing to %s: no change from entry %s on is %s", verb, u.To, stateWord(from))
		}
		return sel, nil
	}
	if len(u.Changes) == 0 {
		return nil, fmt.Errorf("name the changes to %s", verb)
	}
	for _, n := range u.Changes {
		i := slices.IndexFunc(changes, func(c Change) bool { return c.N == n })
		switch {
		case i < 0:
			return nil, noSuchChange(info, changes, n)
		case changes[i].State != from:
			return nil, fmt.Errorf("change %d is %s already", n, stateWord(changes[i].State))
		}
		if !slices.Contains(sel, n) {
			sel = append(sel, n)
		}
	}
	return sel, nil
}

// noSuchChange says why n names none of the session's own changes (the
// journal holds only its own): a fork may mean its parent's, which it
// cannot undo; otherwise it says what the session has.
func noSuchChange(info SessionInfo, changes []Change, n int) error {
	last := 0
	for _, c := range changes {
		last = max(last, c.N)
	}
	switch {
	case len(info.Ancestors) > 0:
		return fmt.Errorf("session %s has no change %d of its own (a forked session cannot undo its parent's changes: undo them in %s)", info.ID, n, info.Ancestors[0])
	case last == 0:
		return fmt.Errorf("session %s has no change %d: it has made no file changes", info.ID, n)
	}
	return fmt.Errorf("session %s has no change %d: its changes are numbered 1 to %d (pi-tui sessions changes %s lists them)", info.ID, n, last, info.ID)
}

func stateWord(state string) string {
	if state == StateActive {
		return "active"
	}
	return "undone"
}

// plan groups the selected changes by file: each file goes back to its
// state before the earliest of them (undo) or forward to its state after
// the latest (redo), and must now hold the other end.
func (s *Store) plan(byN map[int]record, state map[int]string, sel []int, redo bool, folders map[string]bool) ([]target, []Conflict) {
	type key struct{ root, path string }
	groups := map[key][]int{}
	var order []key
	for _, n := range sel {
		r := byN[n]
		k := key{r.Root, r.Path}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], n)
	}
	// Every change of each file, once: a rewind of thousands of files
	// looks each file's changes up rather than scanning them all.
	byPath := map[key][]int{}
	for n, r := range byN {
		byPath[key{r.Root, r.Path}] = append(byPath[key{r.Root, r.Path}], n)
	}
	var targets []target
	var conflicts []Conflict
	for _, k := range order {
		ns := groups[k]
		slices.Sort(ns)
		first, last := byN[ns[0]], byN[ns[len(ns)-1]]
		shown := first.shown()
		if first.Folder != "" && folders != nil && !folders[first.Root] {
			conflicts = append(conflicts, Conflict{Path: shown, Reason: fmt.Sprintf("was changed in folder %q (%s), which is no longer a folder of the project: add it again (pi-tui projects folders add) to undo there", first.Folder, first.Root)})
			continue
		}
		// A later change of the same file, left as it is, would be lost.
		others := byPath[k]
		slices.Sort(others)
		for _, n := range others {
			if n > ns[0] && state[n] == StateActive && !slices.Contains(ns, n) {
				conflicts = append(conflicts, Conflict{Path: shown, Reason: fmt.Sprintf("was changed again by change %d, which this leaves as it is (undo that one too)", n)})
				break
			}
		}
		// Between two of these changes someone else may have edited the
		// file: going back past both would lose that edit.
		for i := 0; i+1 < len(ns); i++ {
			a, b := byN[ns[i]].After, byN[ns[i+1]].Before
			if a.Kind != b.Kind || a.Hash != b.Hash {
				conflicts = append(conflicts, Conflict{Path: shown, Forceable: true,
					Reason: fmt.Sprintf("was edited outside the agent between changes %d and %d (going back past both loses that edit)", ns[i], ns[i+1])})
				break
			}
		}
		t := target{root: k.root, path: k.path, shown: shown, changes: ns, expect: last.After, want: first.Before}
		if redo {
			t.expect, t.want = first.Before, last.After
		}
		if t.want.Kind != "none" {
			b, ok := s.content(kindByte(t.want), t.want.Hash, t.want.Kept)
			if !ok || (t.want.Kind != "file" && t.want.Kind != "link") {
				conflicts = append(conflicts, Conflict{Path: shown, Reason: fmt.Sprintf("cannot be restored: its content was not kept (over %s, or the session's checkpoints were full)", sizeText(s.lim.MaxFileBytes))})
				continue
			}
			t.content = b
		}
		targets = append(targets, t)
	}
	return targets, conflicts
}

// guard checks each file holds what the change (or the undo) left.
func (s *Store) guard(targets []target, redo bool) []Conflict {
	var out []Conflict
	roots := rootSet{}
	defer roots.close()
	for _, t := range targets {
		r, err := s.openRoot(roots, t.root)
		if err != nil {
			out = append(out, Conflict{Path: t.shown, Reason: "cannot be reached: " + err.Error()})
			continue
		}
		cp := &capturer{s: s, r: r, start: time.Now(), bud: &budget{}}
		cur := cp.capture(t.path, nil, fileState{}, false)
		if !holds(cur, t.expect) && !(cur.kind == kindDir && t.expect.Kind == "none" && emptied(targets, t)) {
			why := "changed since the agent left it"
			if redo {
				why = "changed since it was undone"
			}
			out = append(out, Conflict{Path: t.shown, Reason: why, Forceable: true})
		}
	}
	return out
}

// rootSet holds the project folders an undo opened, each once (a session
// may have worked in a worktree and then in the project).
type rootSet map[string]*os.Root

func (rs rootSet) close() {
	for _, r := range rs {
		r.Close()
	}
}

func (s *Store) openRoot(roots rootSet, root string) (*os.Root, error) {
	if r := roots[root]; r != nil {
		return r, nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("the project folder %s cannot be opened: %w", root, err)
	}
	roots[root] = r
	return r, nil
}

// emptied says the undo removes what the agent put in the folder now at
// t's path (a file it turned into a folder): the folder goes with them.
func emptied(targets []target, t target) bool {
	for _, o := range targets {
		if o.root == t.root && o.want.Kind == "none" && strings.HasPrefix(o.path, t.path+"/") {
			return true
		}
	}
	return false
}

// holds says a path's state is what v describes.
func holds(st fileState, v *version) bool {
	if v.Kind == "none" {
		return st.kind == kindNone
	}
	return st.kind == kindByte(v) && st.hash == v.Hash
}

// write puts every target in place, each atomically, through its root.
// It stops at the first failure and says which changes are done.
func (s *Store) write(targets []target, force bool) (done []int, files []string, err error) {
	roots := rootSet{}
	defer roots.close()
	// Removals first, deepest first: a folder the agent put where a file
	// was goes (once empty) before the file comes back.
	slices.SortStableFunc(targets, func(a, b target) int {
		ar, br := a.want.Kind == "none", b.want.Kind == "none"
		switch {
		case ar && !br:
			return -1
		case br && !ar:
			return 1
		case ar && br:
			return strings.Count(b.path, "/") - strings.Count(a.path, "/")
		}
		return 0
	})
	for _, t := range targets {
		r, err := s.openRoot(roots, t.root)
		if err != nil {
			return done, files, err
		}
		rs := s.rootFor(t.root)
		rs.mu.Lock()
		if !force {
			// Checked again just before it is written: a file saved while a
			// long undo ran is not overwritten.
			cp := &capturer{s: s, r: r, start: time.Now(), bud: &budget{}}
			if !holds(cp.capture(t.path, nil, fileState{}, false), t.expect) {
				rs.mu.Unlock()
				return done, files, fmt.Errorf("%s changed while the undo ran, so it was left as it is", t.shown)
			}
		}
		err = writeOne(r, t)
		if err == nil {
			rs.load()
			cp := &capturer{s: s, r: r, start: time.Now(), bud: &budget{}}
			rs.set(t.path, cp.capture(t.path, nil, fileState{}, false))
		}
		rs.mu.Unlock()
		if err != nil {
			return done, files, fmt.Errorf("%s: %w", t.shown, err)
		}
		done = append(done, t.changes...)
		files = append(files, t.shown)
	}
	return done, files, nil
}

func writeOne(r *os.Root, t target) error {
	if t.want.Kind == "none" {
		err := r.Remove(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil {
			removeEmptyParents(r, t.path)
		}
		return err
	}
	dir, name := path.Split(t.path)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		dir = "."
	}
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	d, err := r.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if t.want.Kind == "link" {
		tmp := fmt.Sprintf(".%s.pi-tui-undo-%d", name, time.Now().UnixNano())
		if err := d.Symlink(string(t.content), tmp); err != nil {
			return err
		}
		if err := d.Rename(tmp, name); err != nil {
			d.Remove(tmp)
			return err
		}
		return nil
	}
	perm := fs.FileMode(t.want.Mode).Perm()
	if perm == 0 {
		perm = 0o644
	}
	if fi, err := d.Lstat(name); err == nil && fi.IsDir() {
		return errors.New("a folder is where the file was")
	}
	return atomicfile.WriteIn(d, name, t.content, perm)
}

// removeEmptyParents removes the folders above a removed file that it
// left empty, as git does when a checkout deletes a file: rewinding a
// turn that wrote docs/guide.md leaves no empty docs/ behind. A folder
// that still holds anything, or is a link, stays.
func removeEmptyParents(r *os.Root, p string) {
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		fi, err := r.Lstat(dir)
		if err != nil || !fi.IsDir() || r.Remove(dir) != nil {
			return
		}
	}
}

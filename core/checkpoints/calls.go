package checkpoints

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/events"
)

// before takes in the state a call starts from: the named files, or the
// whole project (what changed since the last look is taken as it is,
// not put down to this call).
func (r *Recorder) before(ctx context.Context, c Call) *Mark {
	m := &Mark{r: r, call: c}
	rs := r.s.rootFor(r.root)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	root, err := os.OpenRoot(r.root)
	if err != nil {
		m.note = "no checkpoint: the project folder cannot be opened (" + err.Error() + ")"
		return m
	}
	defer root.Close()
	bud := r.s.baseBudget(rs)
	cp := &capturer{s: r.s, r: root, start: time.Now(), bud: bud}
	if c.Paths != nil {
		// The named files only: the stat cache on disk is not read (on a
		// large project reading and saving it back would cost what the
		// call saves by not walking, ADR 0087).
		for _, rel := range r.rels(c.Paths) {
			prev, ok := rs.files[rel]
			st := cp.capture(rel, nil, prev, ok)
			rs.set(rel, st)
		}
	} else if err := r.walkLocked(ctx, rs, cp); err != nil {
		m.note = "no checkpoint: " + err.Error()
	}
	rs.kept += cp.added
	return m
}

// rels are the paths inside the root, relative and slash-separated.
func (r *Recorder) rels(paths []string) []string {
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel(r.root, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// set records a path's state (rs.mu held).
func (rs *rootState) set(rel string, st fileState) {
	old, had := rs.files[rel]
	if st.kind == kindNone || st.kind == kindDir {
		if had {
			delete(rs.files, rel)
			rs.dirty = true
		}
		return
	}
	if !had || old != st {
		rs.files[rel] = st
		rs.dirty = true
	}
}

// walkLocked walks the project and makes the walk the stat cache's state,
// returning the paths whose state differs from the cache's before it
// (rs.mu held). A path the cache holds that the walk did not list (git
// ignores it, or the walk stopped at its bound) is kept if it is still
// there.
func (r *Recorder) walkLocked(ctx context.Context, rs *rootState, cp *capturer) error {
	_, err := r.walkDiff(ctx, rs, cp)
	return err
}

type walkResult struct {
	changed []string // paths whose state changed, sorted
	prev    map[string]fileState
	full    bool // the walk stopped at MaxFiles
	deep    bool // folders past maxDepth were left out
	ignored int
}

func (r *Recorder) walkDiff(ctx context.Context, rs *rootState, cp *capturer) (walkResult, error) {
	rs.load() // a walk compares with the stat cache a former process saved
	w := &walker{ctx: ctx, c: cp, abs: r.root, prev: rs.files, cur: make(map[string]fileState, len(rs.files)), max: r.s.lim.MaxFiles}
	if rel, err := filepath.Rel(r.root, r.s.dir); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		w.skip = filepath.ToSlash(rel)
	}
	if err := w.run(excludeRules(r.root)); err != nil {
		return walkResult{}, err
	}
	res := walkResult{prev: rs.files, full: w.full.Load(), deep: w.deep.Load(), ignored: w.ignor}
	for p, st := range w.cur {
		if old, ok := rs.files[p]; !ok || !old.same(st) {
			res.changed = append(res.changed, p)
		}
	}
	for p, old := range rs.files {
		if _, ok := w.cur[p]; ok {
			continue
		}
		if fi, err := cp.r.Lstat(p); err == nil && kindOf(fi.Mode()) == old.kind {
			w.cur[p] = old // not listed (ignored, past the bound), still there
			continue
		}
		res.changed = append(res.changed, p)
	}
	slices.Sort(res.changed)
	if len(res.changed) > 0 || !rs.walked {
		rs.dirty = true
	}
	rs.files, rs.walked = w.cur, true
	return res, nil
}

// maxCallChanges bounds the changes one call records.
const maxCallChanges = 10_000

// baseBudget is what the project's first-seen copy may still add.
func (s *Store) baseBudget(rs *rootState) *budget {
	return &budget{left: s.lim.MaxBaseBytes - rs.kept}
}

// after records what the call changed: the named files, or whatever the
// walk finds changed since the stat cache's state (which Before, or a
// call that ended since, brought up to date).
func (r *Recorder) after(ctx context.Context, m *Mark) Result {
	if m.note != "" {
		return Result{Note: m.note}
	}
	j := r.s.journalFor(r.sessionID)
	// Held until the changes are appended, so that their numbers follow
	// the order the files were seen in: calls that run at once (pi runs a
	// message's calls together) would otherwise number a file's changes
	// out of the order undo chains them in, and its rewind be refused.
	j.mu.Lock()
	defer j.mu.Unlock()
	jerr := j.load()
	sessionLeft := r.s.lim.MaxSessionBytes - j.bytes
	if jerr != nil {
		return Result{Note: "no checkpoint: " + jerr.Error()}
	}
	rs := r.s.rootFor(r.root)
	rs.mu.Lock()
	root, err := os.OpenRoot(r.root)
	if err != nil {
		rs.mu.Unlock()
		return Result{Note: "no checkpoint: the project folder cannot be opened (" + err.Error() + ")"}
	}
	defer root.Close()
	bud := &budget{left: sessionLeft}
	cp := &capturer{s: r.s, r: root, start: time.Now(), bud: bud}
	type pair struct {
		path          string
		before, after fileState
	}
	var pairs []pair
	var full, deep bool
	if m.call.Paths != nil {
		for _, rel := range r.rels(m.call.Paths) {
			prev, ok := rs.files[rel]
			if !ok {
				prev = fileState{kind: kindNone}
			}
			st := cp.capture(rel, nil, prev, false)
			if !prev.same(st) {
				pairs = append(pairs, pair{rel, prev, st})
			}
			rs.set(rel, st)
		}
	} else {
		res, err := r.walkDiff(ctx, rs, cp)
		if err != nil {
			rs.mu.Unlock()
			return Result{Note: "no checkpoint: " + err.Error()}
		}
		full, deep = res.full, res.deep
		for _, p := range res.changed {
			b, ok := res.prev[p]
			if !ok {
				b = fileState{kind: kindNone}
			}
			a, ok := rs.files[p]
			if !ok {
				a = fileState{kind: kindNone}
			}
			pairs = append(pairs, pair{p, b, a})
		}
	}
	if len(pairs) > 0 && time.Since(rs.saved) > saveEvery {
		rs.save() // a failure leaves the next process more to read; said at Close
	}
	rs.mu.Unlock()

	var out Result
	var notes []string
	if full {
		notes = append(notes, fmt.Sprintf("the walk stopped at %d files; changes past them are not seen", r.s.lim.MaxFiles))
	}
	if deep {
		notes = append(notes, fmt.Sprintf("folders more than %d deep are not looked at", maxDepth))
	}
	if len(pairs) > maxCallChanges {
		// One call that touched a hundred thousand files would otherwise
		// make a journal, an event and a card of that size.
		notes = append(notes, fmt.Sprintf("%d more files changed: not recorded (a call records at most %d)", len(pairs)-maxCallChanges, maxCallChanges))
		pairs = pairs[:maxCallChanges]
	}
	if len(pairs) == 0 {
		out.Note = strings.Join(notes, "; ")
		return out
	}
	now := time.Now().UnixMilli()
	recs := make([]record, 0, len(pairs))
	var over, unkept int
	for _, p := range pairs {
		rec := record{Type: "change", Entry: m.call.Entry, ToolCallID: m.call.ToolCallID, Tool: m.call.Tool, Root: r.root,
			Folder: r.folder, Path: p.path, Before: versionOf(p.before), After: versionOf(p.after), At: now}
		if !utf8.ValidString(p.path) {
			rec.PathRaw = []byte(p.path)
		}
		rec.Status = statusOf(p.before, p.after)
		rec.Added, rec.Removed, rec.Binary = r.s.countLines(p.before, p.after)
		if !rec.Before.Kept || !rec.After.Kept {
			unkept++
			if p.before.size > r.s.lim.MaxFileBytes || p.after.size > r.s.lim.MaxFileBytes {
				over++
			}
		}
		recs = append(recs, rec)
	}
	recs[0].Bytes = cp.added
	// Numbered under the journal's lock and from its latest state, so a
	// CLI run beside the UI never gives a number twice.
	if err := os.MkdirAll(filepath.Dir(j.path), 0o700); err != nil {
		return Result{Note: "the checkpoint could not be saved: " + err.Error()}
	}
	unlock, lerr := lockWait(j.path + ".lock")
	if lerr != nil {
		return Result{Note: "the checkpoint could not be saved: " + lerr.Error()}
	}
	defer unlock()
	if err := j.load(); err != nil {
		return Result{Note: "the checkpoint could not be saved: " + err.Error()}
	}
	for i := range recs {
		j.n++
		recs[i].N = j.n
	}
	err = j.append(record{Session: r.sessionID, File: r.file}, recs...)
	if err == nil {
		j.bytes += cp.added
	} else {
		j.n -= len(recs)
	}
	if err != nil {
		return Result{Note: err.Error()}
	}
	for _, rec := range recs {
		out.Changes = append(out.Changes, events.FileChange{N: rec.N, Path: rec.shown(), Status: rec.Status, Added: rec.Added, Removed: rec.Removed,
			Binary: rec.Binary, Kept: rec.Before.Kept && rec.After.Kept})
	}
	switch {
	case bud.full:
		notes = append(notes, fmt.Sprintf("the session's %s of checkpoints is full: %d of these changes can be shown, not undone", sizeText(r.s.lim.MaxSessionBytes), unkept))
	case over > 0:
		notes = append(notes, fmt.Sprintf("%d file(s) over %s: tracked by hash and size, not undoable", over, sizeText(r.s.lim.MaxFileBytes)))
	case unkept > 0:
		notes = append(notes, fmt.Sprintf("%d change(s) without their content kept: shown, not undoable", unkept))
	}
	if cp.err != nil {
		notes = append(notes, "a content could not be saved: "+cp.err.Error())
	}
	out.Note = strings.Join(notes, "; ")
	return out
}

func statusOf(b, a fileState) string {
	switch {
	case b.kind == kindNone:
		return StatusAdded
	case a.kind == kindNone:
		return StatusDeleted
	}
	return StatusModified
}

// prewarm walks the project into the stat cache (what a first walk
// reads, it reads now rather than during a tool call).
func (r *Recorder) prewarm(ctx context.Context) error {
	rs := r.s.rootFor(r.root)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.load()
	if rs.walked {
		return nil // a stat cache from before: the first walk reads only what changed
	}
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return err
	}
	defer root.Close()
	cp := &capturer{s: r.s, r: root, start: time.Now(), bud: r.s.baseBudget(rs)}
	err = r.walkLocked(ctx, rs, cp)
	rs.kept += cp.added
	if err == nil {
		err = rs.save()
	}
	return err
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

package instructions

import (
	"slices"
	"strings"
	"sync"
)

// A runtime resolves its root chain before every prompt to decide whether
// its system prompt is still current, and nearly always nothing changed:
// reading, normalising and rendering the same files again was most of the
// host's work before a prompt. rootMemo lets a Resolver answer ResolveRoot
// from its last answer for the root when every probe that answer was built
// from gives exactly the same result again.
//
// The rule:
//
//   - A root resolution logs every lstat and stat it makes, in order, with
//     its result (the file's kind, size, device and inode, mtime and ctime
//     in nanoseconds, or the error). A resolution that followed a link
//     (EvalSymlinks) is not remembered: what a link leads to is not among
//     the probes.
//   - A resolution is a function of those probes and of the content of the
//     files it read, and a regular file's content cannot change without its
//     size, mtime or ctime changing (ctime cannot be set by an unprivileged
//     user). Replaying the probes and finding every result equal therefore
//     proves the answer unchanged, as long as no timestamp was racy.
//   - Racy timestamps are handled as in dirCache: an answer is remembered
//     only when the mtime and ctime of everything found were older than
//     the moment the resolution started by racyMargin.
//   - The directories above the root are logged too, but only their kind
//     counts (a directory that became a link changes the root's canonical
//     path); their timestamps move whenever a sibling changes.
//
// Replaying costs one stat per probe and no read; a root with a stale or
// no memo is resolved in full. The memo holds rootMemoMax roots and is
// emptied when full.
const rootMemoMax = 64

// probeRec is one logged stat.
type probeRec struct {
	path   string
	follow bool
	loose  bool // a directory above the root: only its kind counts
	fi     fileInfo
	err    error
}

// probeLog collects the probes of one root resolution.
type probeLog struct {
	recs   []probeRec
	linked bool // a link was followed: the resolution cannot be replayed
}

func (l *probeLog) add(dir, name string, follow, loose bool, fi fileInfo, err error) {
	p := dir
	if name != "" {
		p = joinPath(dir, name)
	} else {
		p = strings.Clone(dir)
	}
	l.recs = append(l.recs, probeRec{path: p, follow: follow, loose: loose, fi: fi, err: err})
}

// settled reports whether every timestamp found lies racyMargin before now.
func (l *probeLog) settled(now int64) bool {
	limit := now - int64(racyMargin)
	for _, r := range l.recs {
		if r.err != nil || r.loose {
			continue
		}
		if !r.fi.timed || r.fi.mtime >= limit || r.fi.ctime >= limit {
			return false
		}
	}
	return true
}

// same replays the probes and reports whether each gives what it gave.
func (l *probeLog) same(sys *sysCtx) bool {
	for _, r := range l.recs {
		var fi fileInfo
		var err error
		if r.follow {
			fi, err = sys.stat(r.path)
		} else {
			fi, err = sys.lstat(r.path)
		}
		switch {
		case (err == nil) != (r.err == nil):
			return false
		case err != nil:
			if err != r.err {
				return false
			}
		case r.loose:
			if fi.kind != r.fi.kind {
				return false
			}
		case fi != r.fi:
			return false
		}
	}
	return true
}

type memoEntry struct {
	log   *probeLog
	chain *Chain
}

type rootMemo struct {
	mu sync.Mutex
	m  map[string]memoEntry
}

func (c *rootMemo) get(root string) (memoEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[root]
	return e, ok
}

func (c *rootMemo) put(root string, e memoEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= rootMemoMax {
		c.m = make(map[string]memoEntry)
	}
	c.m[root] = e
}

func (c *rootMemo) drop(root string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, root)
}

// recall returns the remembered chain of root if its probes still give
// what they gave, as a copy the caller may change.
func (r *Resolver) recall(root string) (*Chain, bool) {
	e, ok := r.roots.get(root)
	if !ok {
		return nil, false
	}
	var sys sysCtx
	sys.buf = make([]byte, 0, 256)
	if !e.log.same(&sys) {
		r.roots.drop(root)
		return nil, false
	}
	c := *e.chain
	c.Sources, c.Skipped, c.Warnings = slices.Clone(c.Sources), slices.Clone(c.Skipped), slices.Clone(c.Warnings)
	return &c, true
}

// remember keeps a root resolution's answer when it can be replayed.
func (r *Resolver) remember(root string, x *run, chain *Chain) {
	l := x.sys.log
	if l == nil || l.linked || !x.cacheable || !l.settled(x.now) {
		return
	}
	c := *chain
	c.Sources, c.Skipped, c.Warnings = slices.Clone(c.Sources), slices.Clone(c.Skipped), slices.Clone(c.Warnings)
	r.roots.put(root, memoEntry{log: l, chain: &c})
}

// followed notes that the resolution followed a link.
func (s *sysCtx) followed() {
	if s.log != nil {
		s.log.linked = true
	}
}

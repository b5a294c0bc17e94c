package instructions

import (
	"errors"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// A resolution probes up to six candidate names and the provider files in
// every directory from the root to the target, and nearly all of those
// names are absent. dirCache lets a Resolver skip probing names it already
// found absent, as long as the directory provably has not changed since.
//
// The rule, per canonical directory:
//
//   - The directory's identity and timestamps (device, inode, mtime and
//     ctime in nanoseconds) are taken from an lstat the resolution does
//     anyway while it canonicalises the root or locates the target.
//   - A name is remembered as absent only when lstat said ENOENT for it.
//     .claude/CLAUDE.md is remembered absent only when .claude itself is
//     absent: a change inside .claude does not touch the directory.
//   - A remembered absence is used only while the directory's key is
//     exactly the one seen when it was recorded. Creating, removing or
//     renaming an entry changes the directory's mtime and ctime; changing
//     its permissions, owner, ACL or forging its mtime back with utimes
//     changes its ctime, which no unprivileged user can set.
//   - Names that exist are always probed, checked and read again: a file's
//     content (or a link's target, or .claude's content) can change
//     without the directory changing.
//
// Racy timestamps. Timestamps come from a coarse kernel clock (and some
// file systems keep only seconds, or two seconds), so an entry created in
// the same clock tick as the lstat that produced the key may leave mtime
// and ctime unchanged. As git does for "racily clean" index entries, a key
// is recorded only when both its mtime and its ctime are older than the
// moment the resolution started by racyMargin; any later change then gets
// a timestamp that is necessarily different. A freshly written directory
// is therefore probed in full every time until it is racyMargin old.
//
// The cache lives in the Resolver (a new Resolver starts empty) and holds
// at most dirCacheMax directories; when it is full an arbitrary entry is
// dropped. It only ever saves probes that would have answered ENOENT, so a
// lost entry costs time, never correctness.
const (
	dirCacheMax = 4096
	racyMargin  = 2 * time.Second
)

// dirKey identifies one state of a directory.
type dirKey struct {
	dev, ino     uint64
	mtime, ctime int64 // nanoseconds since the epoch
}

type dirEntry struct {
	key    dirKey
	absent uint64 // bit i: name i (see nameBit) did not exist
}

type dirCache struct {
	mu sync.Mutex
	m  map[string]dirEntry
}

// Bits of dirEntry.absent: candidateNames[i] is bit i, except that the bit
// of .claude/CLAUDE.md means ".claude does not exist"; provider files that
// are not candidates get the following bits (Resolver.fileBits). The top
// bit is the one fact about a present name: ".claude exists", which spares
// checking that again for every resolution (.claude/CLAUDE.md itself is
// still probed every time).
const (
	claudeDirIndex   = len(candidateNames) - 1
	claudeDirPresent = uint64(1) << 63
)

// lookup returns the names recorded absent for dir in the state key, and
// forgets an entry recorded for another state.
func (c *dirCache) lookup(dir string, key dirKey) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[dir]
	if !ok {
		return 0
	}
	if e.key != key {
		delete(c.m, dir)
		return 0
	}
	return e.absent
}

// record remembers names absent in dir in the state key, adding to what is
// known for that state.
func (c *dirCache) record(dir string, key dirKey, absent uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[dir]; ok {
		if e.key == key {
			absent |= e.absent
		}
		c.m[dir] = dirEntry{key: key, absent: absent}
		return
	}
	if c.m == nil {
		c.m = make(map[string]dirEntry)
	}
	if len(c.m) >= dirCacheMax {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[strings.Clone(dir)] = dirEntry{key: key, absent: absent}
}

// len reports the number of directories remembered (for tests).
func (c *dirCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// settled reports whether a directory state is old enough to be trusted:
// both timestamps lie more than racyMargin before now (nanoseconds).
func settled(key dirKey, now int64) bool {
	limit := now - int64(racyMargin)
	return key.mtime < limit && key.ctime < limit
}

// isENOENT reports an lstat that found no entry (not ENOTDIR, not a
// permission or I/O error).
func isENOENT(err error) bool {
	return errors.Is(err, fs.ErrNotExist)
}

// fileBits assigns each provider file its bit in dirEntry.absent: the
// candidate's bit when the name is a candidate, a shared bit for a repeated
// name, 0 (never cached) when the bits run out.
func fileBits(files []string) []uint64 {
	bits := make([]uint64, len(files))
	next := len(candidateNames)
	for j, f := range files {
		for i, c := range candidateNames[:claudeDirIndex] {
			if c == f {
				bits[j] = 1 << i
			}
		}
		for k := 0; k < j && bits[j] == 0; k++ {
			if files[k] == f {
				bits[j] = bits[k]
			}
		}
		if bits[j] == 0 && next < 63 {
			bits[j] = 1 << next
			next++
		}
	}
	return bits
}

// dirStat is a directory's lstat taken during one resolution.
type dirStat struct {
	path string
	fi   fileInfo
}

// noteDir keeps the lstat of a canonical directory seen while
// canonicalising the root or locating the target.
func (x *run) noteDir(path string, fi fileInfo) {
	if fi.kind == kindDir && fi.timed {
		x.dirs = append(x.dirs, dirStat{path: path, fi: fi})
	}
}

// dirKey returns the state of directory d: from an lstat already taken in
// this resolution, or from a new one (a directory reached through a link).
func (x *run) dirKey(d string) (dirKey, bool) {
	if !x.cacheable {
		return dirKey{}, false
	}
	for i := range x.dirs {
		if x.dirs[i].path == d {
			return x.dirs[i].fi.dirKey()
		}
	}
	fi, err := x.sys.lstat(d)
	if err != nil {
		return dirKey{}, false
	}
	return fi.dirKey()
}

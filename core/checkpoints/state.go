package checkpoints

import (
	"io/fs"
	"time"
)

// Kinds of what a path holds.
const (
	kindNone = 'n' // nothing: the path does not exist
	kindFile = 'f'
	kindLink = 'l'
	kindDir  = 'd' // a folder where a file was (only seen when guarding)
	kindOdd  = 'o' // a FIFO, socket or device: never read
)

// fileState is what a path held at one moment: its kind, its content's
// hash (and whether the content is kept in the store) and the stat data
// that lets a later walk take it as unchanged without reading it.
type fileState struct {
	kind  byte
	hash  string // "sha256:<hex>", or "stat:<size>:<mtime>" for a file too large to hash
	kept  bool   // the content is in the object store
	size  int64
	perm  fs.FileMode // permission bits (the executable bit matters)
	stat  statKey
	racy  bool // changed too close to the walk for its stat to be trusted next time
	valid bool // the stat key may be compared (false after an undo wrote it)
}

// statKey is the stat data a walk compares: a file whose key is the same
// is taken as unchanged.
type statKey struct {
	size         int64
	mtime, ctime int64 // nanoseconds
	ino, dev     uint64
	mode         fs.FileMode
}

func (a fileState) same(b fileState) bool {
	return a.kind == b.kind && a.hash == b.hash && (a.kind != kindFile || a.perm&0o111 == b.perm&0o111)
}

// racyWindow is how close to a walk a file's mtime may be and still be
// trusted: a file written within it may be written again with the same
// size and mtime (the clock's tick), so the next walk reads it again.
const racyWindow = 100 * time.Millisecond

func keyOf(fi fs.FileInfo) statKey {
	k := statKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode()}
	sysKey(fi, &k)
	return k
}

// kindOf is the kind a mode holds.
func kindOf(m fs.FileMode) byte {
	switch {
	case m&fs.ModeSymlink != 0:
		return kindLink
	case m.IsRegular():
		return kindFile
	case m.IsDir():
		return kindDir
	}
	return kindOdd
}

package checkpoints

import (
	"sync"
)

// Limits bound what the checkpoints keep.
type Limits struct {
	// MaxFileBytes is the most of one file's content kept; a larger file
	// is tracked by hash and size only: its changes are shown, not undone.
	MaxFileBytes int64
	// MaxSessionBytes is the most content a session's changes add to the
	// store; past it, changes are recorded by hash and size only.
	MaxSessionBytes int64
	// MaxBaseBytes is the most content kept of a project's files as the
	// first walk found them (shared by the project's sessions).
	MaxBaseBytes int64
	// MaxFiles is the most files one walk looks at; past it the walk is
	// partial and the change says so.
	MaxFiles int
}

// DefaultLimits are the bounds docs/screens/review.md states.
func DefaultLimits() Limits {
	return Limits{MaxFileBytes: 1 << 20, MaxSessionBytes: 256 << 20, MaxBaseBytes: 1 << 30, MaxFiles: 250_000}
}

// Store is the checkpoint store of one data dir. One per process (the
// composition root builds it); its methods are safe for concurrent use.
type Store struct {
	dir string
	lim Limits

	mu       sync.Mutex
	roots    map[string]*rootState // stat caches by canonical root
	journals map[string]*journal   // by session id

	zw sync.Pool // *zlib.Writer, reused
}

// Open returns the store in dir (D/checkpoints). Nothing is created until
// a change is recorded.
func Open(dir string, lim Limits) *Store {
	if lim == (Limits{}) {
		lim = DefaultLimits()
	}
	return &Store{dir: dir, lim: lim, roots: map[string]*rootState{}, journals: map[string]*journal{}}
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Close saves the stat caches that changed, so the next process's first
// walk reads only what changed since.
func (s *Store) Close() error {
	return s.saveRoots()
}

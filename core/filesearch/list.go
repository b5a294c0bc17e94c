// Package filesearch lists a project's files for `@` completion and
// matches typed text against them. In a git checkout the list is what git
// says: first the tracked files (`git ls-files --cached`; in a large
// checkout the first Limits.FirstBatch of them while git lists the rest),
// then, a second step, the files it neither tracks nor ignores (`--others
// --exclude-standard`, a walk of the work tree). Without git the index file is read directly, with the limits
// that has (see index.go); outside a checkout the folder is walked
// honouring .gitignore files, with bounds on the number of files and the
// depth. A Cache keeps one list per project and rebuilds it when the index
// changed or the walk is old.
package filesearch

import (
	"strings"
	"time"

	"github.com/pi-tui/pi-tui/core/fuzzy"
)

// Limits bound a listing.
type Limits struct {
	MaxFiles   int           // files listed at most; the list says it was cut
	MaxDepth   int           // folders entered below the root at most
	MaxBytes   int64         // bytes of a git index read, or of the paths git prints, at most
	GitTimeout time.Duration // one git command at most; then the list is made without it
	WalkMaxAge time.Duration // a walked list (or untracked files) is reused this long
	// FirstBatch is how many tracked files git lists before Cache.Get
	// returns them as a first part while git goes on (0: wait for all).
	FirstBatch int
}

// DefaultLimits suit a large monorepo on a laptop.
func DefaultLimits() Limits {
	return Limits{MaxFiles: 200_000, MaxDepth: 64, MaxBytes: 512 << 20, GitTimeout: defaultGitTimeout, WalkMaxAge: 10 * time.Second,
		FirstBatch: 10_000}
}

// List is a project's files.
type List struct {
	Root  string
	Paths []string     // slash-separated, relative to Root, in index or folder order
	texts *fuzzy.Texts // Paths prepared for matching, base names marked
	// FromIndex says the paths start with git's tracked files; otherwise
	// the folder was walked. Untracked says the files git does not track
	// and does not ignore were added (Cache.AddUntracked).
	FromIndex bool
	Untracked bool
	Truncated bool   // the list stopped at Limits.MaxFiles or MaxBytes
	Warning   string // what the list may lack, and why (git failed, an index it cannot read alone)

	tracked  int      // Paths[:tracked] are tracked; after them, untracked files
	viaGit   bool     // listed by git, so the untracked files are asked of git too
	ageBound bool     // the index's stamp cannot tell every change (submodules have their own)
	subs     []string // the checked-out submodules, whose untracked files git lists in them
	rest     *pending // for a first part: the listing that goes on
	stamp    indexStamp
	built    time.Time
	gitDir   string // the repository's git folder, for info/exclude (without git)
	prefix   string // the root's path in the repository
}

// Partial reports whether l is a first part of the tracked files (or the
// previous list, while the new one is made): Cache.AddUntracked returns
// the whole list.
func (l *List) Partial() bool { return l.rest != nil }

type indexStamp struct {
	path  string
	size  int64
	mtime time.Time
}

// newList prepares paths for matching: a path's base name is its base.
func newList(root string, paths []string) *List {
	base := make([]int32, len(paths))
	for i, p := range paths {
		base[i] = int32(strings.LastIndexByte(p, '/') + 1)
	}
	return &List{Root: root, Paths: paths, texts: fuzzy.Prepare(paths, base), built: time.Now()}
}

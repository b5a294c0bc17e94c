// Package filesearch lists a project's files for `@` completion and
// matches typed text against them. In a git checkout the list is the
// tracked files, read straight from the git index (no git process, a few
// milliseconds for 100,000 files); elsewhere, or when the index cannot be
// read, the folder is walked honouring .gitignore files, with bounds on
// the number of files and the depth. A Cache keeps one list per project
// and rebuilds it when the index changed or the walk is old.
package filesearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Limits bound a walk, and the index file read.
type Limits struct {
	MaxFiles   int   // files listed at most; the list says it was cut
	MaxDepth   int   // folders entered below the root at most
	MaxIndex   int64 // bytes of a git index read at most
	WalkMaxAge time.Duration
}

// DefaultLimits suit a large monorepo on a laptop.
func DefaultLimits() Limits {
	return Limits{MaxFiles: 200_000, MaxDepth: 64, MaxIndex: 512 << 20, WalkMaxAge: 10 * time.Second}
}

// List is a project's files.
type List struct {
	Root  string
	Paths []string // slash-separated, relative to Root, in index or folder order
	lower []string // Paths with ASCII letters lowered, for matching
	base  []int32  // byte offset of each path's base name
	// FromIndex says the paths are git's tracked files; otherwise the
	// folder was walked. Untracked says the files git does not track and
	// does not ignore were added (Cache.AddUntracked).
	FromIndex bool
	Untracked bool
	Truncated bool   // the walk stopped at Limits.MaxFiles
	Warning   string // why the index was not used, when it exists but could not be read

	stamp  indexStamp
	built  time.Time
	gitDir string // the repository's git folder, for info/exclude
	prefix string // the root's path in the repository
}

type indexStamp struct {
	path  string
	size  int64
	mtime time.Time
}

// Build lists root's files.
func Build(ctx context.Context, root string, lim Limits) (*List, error) {
	root = filepath.Clean(root)
	l, err := fromIndex(root, lim)
	if err == nil && l != nil {
		return l, nil
	}
	w, werr := walk(ctx, root, lim, nil)
	if werr != nil {
		return nil, werr
	}
	if err != nil {
		w.Warning = "the git index could not be read (" + err.Error() + "); the folder was walked instead"
	}
	return w, nil
}

// gitDir finds the repository holding root: the nearest folder at or
// above root with a ".git" folder, or a ".git" file naming the real git
// folder (a worktree or submodule). It returns the git folder and root's
// path inside the repository ("" at its top, else ending in "/").
func gitDir(root string) (dir, prefix string, err error) {
	cur := root
	for {
		dot := filepath.Join(cur, ".git")
		fi, lerr := os.Lstat(dot)
		if lerr == nil {
			if rel, rerr := filepath.Rel(cur, root); rerr == nil && rel != "." {
				prefix = filepath.ToSlash(rel) + "/"
			}
			switch {
			case fi.IsDir():
				return dot, prefix, nil
			case fi.Mode().IsRegular():
				b, _, rerr := fsutil.ReadRegular(dot, 4096)
				if rerr != nil {
					return "", "", fmt.Errorf(".git: %v", fsutil.PlainError(rerr))
				}
				line, _, _ := strings.Cut(string(b), "\n")
				target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
				if !ok || strings.TrimSpace(target) == "" {
					return "", "", errors.New(`the .git file does not say "gitdir: <folder>"`)
				}
				target = strings.TrimSpace(target)
				if !filepath.IsAbs(target) {
					target = filepath.Join(cur, target)
				}
				return filepath.Clean(target), prefix, nil
			}
			return "", "", nil // a .git link or something odd: not followed
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", "", nil
		}
		cur = parent
	}
}

// fromIndex lists the files tracked in root's repository. It returns nil
// and no error when root is not in a git checkout (or the repository has
// no index yet), and an error when the index exists but cannot be used.
func fromIndex(root string, lim Limits) (*List, error) {
	dir, prefix, err := gitDir(root)
	if err != nil || dir == "" {
		return nil, err
	}
	idx := filepath.Join(dir, "index")
	data, fi, err := readIndex(idx, lim.MaxIndex)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n, err := parseIndex(data, hashSize(dir))
	if err != nil {
		return nil, err
	}
	paths := n.strings(prefix)
	if len(paths) == 0 && prefix != "" {
		// root is an untracked folder inside some repository (a home
		// folder kept in git): its own files are what the user means.
		return nil, nil
	}
	l := newList(root, paths)
	l.FromIndex, l.gitDir, l.prefix = true, dir, prefix
	l.stamp = indexStamp{path: idx, size: fi.Size(), mtime: fi.ModTime()}
	return l, nil
}

// hashSize is the length of the repository's object names: 32 bytes when
// its config (a worktree's is in the common folder) says objectformat is
// sha256, else 20.
func hashSize(dir string) int {
	cfgDir := dir
	if b, _, err := fsutil.ReadRegular(filepath.Join(dir, "commondir"), 4096); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		cfgDir = common
	}
	b, _, err := fsutil.ReadRegular(filepath.Join(cfgDir, "config"), 1<<20)
	if err != nil {
		return 20
	}
	for line := range strings.Lines(strings.ToLower(string(b))) {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "objectformat" && strings.TrimSpace(v) == "sha256" {
			return 32
		}
	}
	return 20
}

// readIndex reads the index without blocking on a FIFO and without
// reading more than limit bytes.
func readIndex(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := fsutil.OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, nil, fmt.Errorf("the git index is %d bytes, over the %d-byte limit", fi.Size(), limit)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, fmt.Errorf("reading the git index: %v", fsutil.PlainError(err))
	}
	return data, fi, nil
}

// newList prepares paths for matching.
func newList(root string, paths []string) *List {
	l := &List{Root: root, Paths: paths, lower: paths, base: make([]int32, len(paths)), built: time.Now()}
	upper := false
	for i, p := range paths {
		l.base[i] = int32(strings.LastIndexByte(p, '/') + 1)
		if !upper && hasUpper(p) {
			upper = true
		}
	}
	if upper {
		l.lower = make([]string, len(paths))
		for i, p := range paths {
			l.lower[i] = lowerASCII(p)
		}
	}
	return l
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// lowerASCII lowers ASCII letters only: byte offsets stay those of the
// original path.
func lowerASCII(s string) string {
	if !hasUpper(s) {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Cache keeps one list per project root for a program. It is safe for use
// from the commands that build lists off the UI goroutine.
type Cache struct {
	lim   Limits
	mu    sync.Mutex
	lists map[string]*List
}

// NewCache returns an empty cache.
func NewCache(lim Limits) *Cache { return &Cache{lim: lim, lists: map[string]*List{}} }

// Get returns root's list, rebuilt when the git index changed (its size or
// time) or a walk is older than Limits.WalkMaxAge.
func (c *Cache) Get(ctx context.Context, root string) (*List, error) {
	root = filepath.Clean(root)
	c.mu.Lock()
	l := c.lists[root]
	c.mu.Unlock()
	if l != nil && c.fresh(l) {
		return l, nil
	}
	l, err := Build(ctx, root, c.lim)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.lists[root] = l
	c.mu.Unlock()
	return l, nil
}

func (c *Cache) fresh(l *List) bool {
	if (!l.FromIndex || l.Untracked) && time.Since(l.built) >= c.lim.WalkMaxAge {
		return false
	}
	if !l.FromIndex {
		return true
	}
	fi, err := os.Stat(l.stamp.path)
	return err == nil && fi.Size() == l.stamp.size && fi.ModTime().Equal(l.stamp.mtime)
}

// AddUntracked returns index list l with the files of the work tree that
// git neither tracks nor ignores (.gitignore files, and info/exclude when
// the project is the repository's top) added after the tracked ones, and
// keeps it in the cache. It walks the folder, so it is the second, slower
// step: the tracked files are offered first.
func (c *Cache) AddUntracked(ctx context.Context, l *List) (*List, error) {
	if !l.FromIndex || l.Untracked {
		return l, nil
	}
	var rules []rule
	if l.prefix == "" {
		if b, _, err := fsutil.ReadRegular(filepath.Join(l.gitDir, "info", "exclude"), maxIgnoreFile); err == nil {
			rules = parseIgnore("", string(b))
		}
	}
	w, err := walk(ctx, l.Root, c.lim, rules)
	if err != nil {
		return nil, err
	}
	tracked := make(map[string]struct{}, len(l.Paths))
	for _, p := range l.Paths {
		tracked[p] = struct{}{}
	}
	paths := slices.Clip(l.Paths)
	for _, p := range w.Paths {
		if _, ok := tracked[p]; !ok {
			paths = append(paths, p)
		}
	}
	nl := newList(l.Root, paths)
	nl.FromIndex, nl.Untracked, nl.Truncated = true, true, w.Truncated
	nl.stamp, nl.gitDir, nl.prefix = l.stamp, l.gitDir, l.prefix
	c.mu.Lock()
	if cur := c.lists[l.Root]; cur == nil || cur == l {
		c.lists[l.Root] = nl
	}
	c.mu.Unlock()
	return nl, nil
}

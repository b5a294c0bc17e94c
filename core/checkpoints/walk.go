package checkpoints

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pi-tui/pi-tui/internal/fsutil"
	"github.com/pi-tui/pi-tui/internal/gitignore"
)

// maxDepth bounds how deep a walk goes; maxIgnoreBytes one .gitignore.
const (
	maxDepth       = 64
	maxIgnoreBytes = 1 << 20
)

// walkers bounds the folders a walk lists at once: stat calls dominate
// a walk, and a few in flight keep the cores busy.
const walkers = 4

// walker lists a project's files with their states: every file and link
// but those git ignores (the .gitignore files and the repository's
// info/exclude) and .git itself. Folders are entered only when they are
// real folders, so no link leads the walk out of the project. Folders
// are listed by up to walkers goroutines; prev is only read.
type walker struct {
	ctx  context.Context
	c    *capturer
	abs  string // the root, absolute
	prev map[string]fileState
	max  int
	skip string // a folder inside the root not to enter (the store itself)

	sem  chan struct{}
	wg   sync.WaitGroup
	full atomic.Bool // stopped at max
	deep atomic.Bool // a folder past maxDepth was left out

	mu    sync.Mutex
	cur   map[string]fileState
	ignor int   // folders left out because git ignores them
	err   error // the first failure that stops the walk
}

func (w *walker) run(rules []gitignore.Rule) error {
	w.sem = make(chan struct{}, walkers)
	w.dir(".", "", 0, rules)
	w.wg.Wait()
	return w.err
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

type walked struct {
	path string
	st   fileState
}

func (w *walker) dir(rel, base string, depth int, rules []gitignore.Rule) {
	if err := w.ctx.Err(); err != nil {
		w.fail(err)
		return
	}
	if w.full.Load() {
		return
	}
	// Listed through the root: a folder swapped for a link out of the
	// project while the walk runs is refused, never listed.
	ents, err := w.readDir(rel)
	if err != nil {
		if rel == "." {
			w.fail(err)
		}
		return // an unreadable folder is left out
	}
	for _, e := range ents {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if b, err := fsutil.ReadHeadIn(w.c.r, path.Join(rel, ".gitignore"), maxIgnoreBytes); err == nil {
				rules = append(rules[:len(rules):len(rules)], gitignore.Parse(base, string(b))...)
			}
			break
		}
	}
	var batch []walked
	ignored := 0
	for _, e := range ents {
		name := e.Name()
		if name == ".git" {
			continue
		}
		p := name
		if base != "" {
			p = base + "/" + name
		}
		if e.IsDir() {
			if gitignore.Ignored(rules, p, true) {
				ignored++
				continue
			}
			if p == w.skip {
				continue
			}
			if depth+1 > maxDepth {
				w.deep.Store(true)
				continue
			}
			select {
			case w.sem <- struct{}{}:
				w.wg.Add(1)
				go func() {
					defer w.wg.Done()
					defer func() { <-w.sem }()
					w.dir(p, p, depth+1, rules)
				}()
			default:
				w.dir(p, p, depth+1, rules)
			}
			continue
		}
		if gitignore.Ignored(rules, p, false) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // gone since the listing
		}
		prev, ok := w.prev[p]
		st := w.c.capture(p, fi, prev, ok)
		if st.kind == kindNone || st.kind == kindDir {
			continue
		}
		batch = append(batch, walked{p, st})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ignor += ignored
	for _, it := range batch {
		if len(w.cur) >= w.max {
			w.full.Store(true)
			return
		}
		w.cur[it.path] = it.st
	}
}

// excludeRules are the repository's info/exclude rules when root is a
// repository's top (a worktree's .git file names its git folder, whose
// commondir holds info/).
func excludeRules(root string) []gitignore.Rule {
	gitDir := filepath.Join(root, ".git")
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return nil
	}
	if fi.Mode().IsRegular() {
		b, _, err := fsutil.ReadRegular(gitDir, 4096)
		if err != nil {
			return nil
		}
		line, _, _ := strings.Cut(string(b), "\n")
		d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return nil
		}
		d = strings.TrimSpace(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		gitDir = d
		if c, _, err := fsutil.ReadRegular(filepath.Join(d, "commondir"), 4096); err == nil {
			cd := strings.TrimSpace(string(c))
			if !filepath.IsAbs(cd) {
				cd = filepath.Join(d, cd)
			}
			gitDir = cd
		}
	} else if !fi.IsDir() {
		return nil
	}
	b, _, err := fsutil.ReadRegular(filepath.Join(gitDir, "info", "exclude"), maxIgnoreBytes)
	if err != nil {
		return nil
	}
	return gitignore.Parse("", string(b))
}

// readDir lists a folder opened through the root.
func (w *walker) readDir(rel string) ([]os.DirEntry, error) {
	f, err := w.c.r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

package filesearch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Cache keeps one list per project root for a program. It is safe for use
// from the commands that build lists off the UI goroutine.
type Cache struct {
	lim  Limits
	find GitFinder

	gitMu sync.Mutex // held while git is being found
	found bool
	git   Git

	mu    sync.Mutex
	lists map[string]*List
}

// NewCache returns an empty cache that lists with the git find returns
// (found on first use); a nil find, or one that fails, means without git.
func NewCache(lim Limits, find GitFinder) *Cache {
	return &Cache{lim: lim, find: find, lists: map[string]*List{}}
}

// gitFor returns git, finding it the first time; nil when there is none.
func (c *Cache) gitFor(ctx context.Context) Git {
	c.gitMu.Lock()
	defer c.gitMu.Unlock()
	if c.found || c.find == nil {
		return c.git
	}
	g, err := c.find(ctx)
	if err != nil && ctx.Err() != nil {
		return nil // cancelled: try again next time
	}
	c.found = true
	if err == nil {
		c.git = g
	}
	return c.git
}

// Get returns root's list, rebuilt when the git index changed (its size or
// time) or a walk, or the untracked files, are older than
// Limits.WalkMaxAge. A rebuilt list keeps the untracked files the old one
// had, after the tracked ones and without those now tracked, until
// AddUntracked looks again: the menu does not lose them meanwhile.
//
// In a large checkout Get does not wait for git to list every tracked
// file: once Limits.FirstBatch are listed it returns them (or, when
// rebuilding, the previous list) as a Partial list, and the listing goes
// on; AddUntracked on that list returns the whole one.
func (c *Cache) Get(ctx context.Context, root string) (*List, error) {
	root = filepath.Clean(root)
	c.mu.Lock()
	old := c.lists[root]
	c.mu.Unlock()
	if old != nil && old.rest != nil {
		select {
		case <-old.rest.done:
			if old.rest.err != nil {
				break // listed again below
			}
			old = c.settle(root, old)
		default:
			return old, nil // still listing: the part there is
		}
	}
	if old != nil && old.rest == nil && c.fresh(old) {
		return old, nil
	}
	l, err := c.build(ctx, root, old)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.lists[root] = l
	c.mu.Unlock()
	return l, nil
}

// pending is the listing behind a Partial list.
type pending struct {
	done chan struct{}
	list *List // once done: the whole list (made without git if git failed)
	err  error
}

// build lists root for Get, old being the list it replaces (or nil).
func (c *Cache) build(ctx context.Context, root string, old *List) (*List, error) {
	g := c.gitFor(ctx)
	if g == nil || c.lim.FirstBatch <= 0 {
		l, err := Build(ctx, root, c.lim, g)
		if err != nil {
			return nil, err
		}
		return carry(l, old, c.lim), nil
	}
	p := &pending{done: make(chan struct{})}
	first := make(chan []string, 1) // the first part; nil when the listing ended before one
	go func() {
		defer close(p.done)
		sent := false
		l, err := build(ctx, root, c.lim, g, func(part []string) {
			sent = true
			first <- part
		})
		if err == nil {
			l = carry(l, old, c.lim)
		}
		p.list, p.err = l, err
		if !sent {
			first <- nil
		}
	}()
	var part []string
	select {
	case part = <-first:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if part == nil {
		<-p.done
		return p.list, p.err
	}
	l := newList(root, part)
	if old != nil && old.FromIndex {
		// The previous list, whole, is a better first answer than a part.
		l = newList(root, old.Paths)
		l.tracked = old.tracked
	} else {
		l.tracked = len(part)
	}
	l.FromIndex, l.viaGit, l.rest = true, true, p
	return l, nil
}

// settle puts the whole list behind Partial list l in the cache in its
// place (unless l was replaced meanwhile) and returns it.
func (c *Cache) settle(root string, l *List) *List {
	whole := l.rest.list
	c.mu.Lock()
	if c.lists[root] == l {
		c.lists[root] = whole
	}
	c.mu.Unlock()
	return whole
}

// carry returns l with old's untracked files, when both are index lists
// and old had some.
func carry(l, old *List, lim Limits) *List {
	if old == nil || !old.FromIndex || !l.FromIndex || len(old.Paths) <= old.tracked {
		return l
	}
	return carryUntracked(l, old.Paths[old.tracked:], lim)
}

// carryUntracked returns tracked list l with the untracked paths of an
// older list added, those now tracked left out.
func carryUntracked(l *List, untracked []string, lim Limits) *List {
	left := make(map[string]struct{}, len(untracked))
	for _, p := range untracked {
		left[p] = struct{}{}
	}
	for _, p := range l.Paths {
		delete(left, p)
	}
	paths := slices.Clip(l.Paths)
	for _, p := range untracked {
		if _, ok := left[p]; ok && len(paths) < lim.MaxFiles {
			paths = append(paths, p)
		}
	}
	nl := newList(l.Root, paths)
	nl.copyState(l)
	return nl
}

// copyState gives nl what l knows of where its tracked files came from.
func (nl *List) copyState(l *List) {
	nl.FromIndex, nl.Truncated, nl.Warning = l.FromIndex, l.Truncated, l.Warning
	nl.tracked, nl.viaGit, nl.ageBound, nl.subs = l.tracked, l.viaGit, l.ageBound, l.subs
	nl.stamp, nl.gitDir, nl.prefix = l.stamp, l.gitDir, l.prefix
}

func (c *Cache) fresh(l *List) bool {
	aged := time.Since(l.built) >= c.lim.WalkMaxAge
	if (!l.FromIndex || l.Untracked || l.ageBound) && aged {
		return false
	}
	if !l.FromIndex {
		return true
	}
	if l.stamp.path == "" {
		return false // no index yet: listing again costs little
	}
	fi, err := os.Stat(l.stamp.path)
	return err == nil && fi.Size() == l.stamp.size && fi.ModTime().Equal(l.stamp.mtime)
}

// AddUntracked returns index list l with the files of the work tree that
// git neither tracks nor ignores added after the tracked ones, and keeps
// it in the cache. With git they are what `git ls-files --others
// --exclude-standard` lists (every exclude source, core.excludesFile
// included); without it the folder is walked with the .gitignore files,
// and info/exclude when the project is the repository's top. It walks the
// work tree, so it is the second, slower step: the tracked files are
// offered first.
//
// For a Partial list it waits for the whole tracked list and returns
// that (Untracked still false: the untracked files are the next call's).
func (c *Cache) AddUntracked(ctx context.Context, l *List) (*List, error) {
	if l.rest != nil {
		select {
		case <-l.rest.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.rest.err != nil {
			return nil, l.rest.err
		}
		return c.settle(l.Root, l), nil
	}
	if !l.FromIndex || l.Untracked {
		return l, nil
	}
	tracked := l.Paths[:l.tracked:l.tracked]
	var paths []string
	full := l.Truncated
	if l.viaGit {
		g := c.gitFor(ctx)
		if room := c.lim.MaxFiles - len(tracked); g != nil && room > 0 {
			n, cut, err := gitOthers(ctx, g, l.Root, l.subs, c.lim, room)
			if err != nil {
				return nil, err
			}
			paths, full = append(tracked, n.strings("")...), full || cut
		} else {
			paths, full = tracked, true
		}
	} else {
		var cut bool
		var err error
		if paths, cut, err = c.walkUntracked(ctx, l, tracked); err != nil {
			return nil, err
		}
		full = full || cut
	}
	nl := newList(l.Root, paths)
	nl.copyState(l)
	nl.Untracked, nl.Truncated = true, full
	c.mu.Lock()
	if cur := c.lists[l.Root]; cur == nil || cur == l {
		c.lists[l.Root] = nl
	}
	c.mu.Unlock()
	return nl, nil
}

// walkUntracked adds to the tracked paths of an index read without git
// the files a walk finds that the index does not name.
func (c *Cache) walkUntracked(ctx context.Context, l *List, tracked []string) ([]string, bool, error) {
	w, err := walk(ctx, l.Root, c.lim, excludeRules(l.gitDir, l.prefix))
	if err != nil {
		return nil, false, err
	}
	known := make(map[string]struct{}, len(tracked))
	for _, p := range tracked {
		known[p] = struct{}{}
	}
	paths := tracked
	for _, p := range w.Paths {
		if _, ok := known[p]; !ok {
			paths = append(paths, p)
		}
	}
	return paths, w.Truncated, nil
}

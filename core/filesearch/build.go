package filesearch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// Build lists root's files: with git when g is not nil (see gitlist.go),
// else, or when git fails, from the index file read directly; outside a
// checkout, or for a folder of a repository that tracks nothing in it, by
// walking the folder.
func Build(ctx context.Context, root string, lim Limits, g Git) (*List, error) {
	return build(ctx, root, lim, g, nil)
}

// build is Build, calling first (when not nil) with the tracked paths git
// has listed so far once there are Limits.FirstBatch of them.
func build(ctx context.Context, root string, lim Limits, g Git, first func([]string)) (*List, error) {
	root = filepath.Clean(root)
	var gitWarn string
	if g != nil {
		l, err := fromGit(ctx, g, root, lim, first)
		switch {
		case err == nil && l != nil:
			return l, nil
		case err == nil, errors.Is(err, errNotRepo):
			return walk(ctx, root, lim, nil)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		gitWarn = err.Error() + "; the git index was read without git"
	}
	l, err := fromIndex(ctx, root, lim)
	if err == nil && l != nil {
		l.Warning = joinWarnings(gitWarn, l.Warning)
		return l, nil
	}
	w, werr := walk(ctx, root, lim, nil)
	if werr != nil {
		return nil, werr
	}
	if err != nil {
		w.Warning = "the git index could not be read (" + err.Error() + "); the folder was walked instead"
	}
	w.Warning = joinWarnings(gitWarn, w.Warning)
	return w, nil
}

// fromGit lists the files git tracks under root. It returns errNotRepo
// outside a work tree, and nil and no error for a folder of a repository
// where nothing is tracked (a home folder kept in git: its own files are
// what the user means, so it is walked).
func fromGit(ctx context.Context, g Git, root string, lim Limits, first func([]string)) (*List, error) {
	info, err := gitRepo(ctx, g, root, lim)
	if err != nil {
		return nil, err
	}
	// Stamped before listing: a change made meanwhile lists again next time.
	fi, statErr := os.Stat(info.index)
	var hint int64
	if statErr == nil {
		hint = fi.Size() / 2
	}
	t, err := gitTracked(ctx, g, root, lim, first, hint)
	if err != nil {
		return nil, err
	}
	paths := t.names.strings("")
	if len(paths) == 0 && info.prefix != "" {
		return nil, nil
	}
	l := newList(root, paths)
	l.FromIndex, l.viaGit, l.tracked, l.Truncated, l.prefix = true, true, len(paths), t.full, info.prefix
	l.subs, l.Warning = t.subs, t.warn
	if statErr == nil {
		l.stamp = indexStamp{path: info.index, size: fi.Size(), mtime: fi.ModTime()}
	}
	// A commit inside a submodule changes its index, not this one.
	l.ageBound = len(t.subs) > 0
	return l, nil
}

// joinWarnings joins the warnings that are not empty.
func joinWarnings(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

package filesearch

import (
	"context"
	"errors"
	"fmt"
	"github.com/pi-tui/pi-tui/internal/gitignore"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// The lists made without git: from the index file when it can say alone
// what is tracked, else from a walk that adds the tracked paths the index
// files name, and says so.

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

// fromIndex lists the files tracked in root's repository, reading the
// index file. It returns nil and no error when root is not in a git
// checkout (or the repository has no index yet), and an error when the
// index exists but cannot be used.
func fromIndex(ctx context.Context, root string, lim Limits) (*List, error) {
	dir, prefix, err := gitDir(root)
	if err != nil || dir == "" {
		return nil, err
	}
	idx := filepath.Join(dir, "index")
	data, fi, err := readIndex(idx, lim.MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	hs := hashSize(dir)
	n, ext, err := parseIndex(data, hs)
	if err != nil {
		return nil, err
	}
	if ext.shared != "" || len(ext.unknown) > 0 {
		return walkWithKnown(ctx, root, lim, dir, prefix, n, ext, hs)
	}
	paths := n.strings(prefix)
	if len(paths) == 0 && prefix != "" {
		// root is an untracked folder inside some repository (a home
		// folder kept in git): its own files are what the user means.
		return nil, nil
	}
	l := newList(root, paths)
	l.FromIndex, l.tracked, l.gitDir, l.prefix = true, len(paths), dir, prefix
	l.stamp = indexStamp{path: idx, size: fi.Size(), mtime: fi.ModTime()}
	return l, nil
}

// walkWithKnown lists a checkout whose index cannot say alone what is
// tracked: a split index (its entries are only the changes since the
// shared index was written, and which shared entries were deleted is a
// bitmap this reader does not apply) or one with a required extension
// this reader does not know. The folder is walked as for untracked files
// (the .gitignore files, info/exclude), and every path the index files
// name that is a file in the folder is added, so a tracked file that
// .gitignore matches is still offered. What this may get wrong (an
// ignored file git no longer tracks but the shared index still names)
// is said in the list's warning, with why.
func walkWithKnown(ctx context.Context, root string, lim Limits, dir, prefix string, n *names, ext indexExtras, hs int) (*List, error) {
	known := n.strings(prefix)
	var why string
	switch {
	case ext.shared != "":
		why = "the git index is split (core.splitIndex) and git could not be run"
		sn, err := readShared(dir, ext.shared, hs, lim)
		if err != nil {
			why += "; its shared index could not be read (" + err.Error() + "), so tracked files that .gitignore matches may be missing"
		} else {
			known = append(sn.strings(prefix), known...)
		}
	default:
		why = "the git index has an extension pi-tui cannot read without git (" + strings.Join(ext.unknown, ", ") + ")"
	}
	w, err := walk(ctx, root, lim, excludeRules(dir, prefix))
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the project folder: %v", fsutil.PlainError(err))
	}
	defer r.Close()
	seen := make(map[string]struct{}, len(w.Paths))
	for _, p := range w.Paths {
		seen[p] = struct{}{}
	}
	paths, full := w.Paths, w.Truncated
	for _, p := range known {
		if _, ok := seen[p]; ok {
			continue
		}
		seen[p] = struct{}{}
		fi, err := r.Lstat(p)
		if err != nil || (!fi.Mode().IsRegular() && fi.Mode().Type() != fs.ModeSymlink) {
			continue // not in the work tree
		}
		if len(paths) >= lim.MaxFiles {
			full = true
			break
		}
		paths = append(paths, p)
	}
	l := newList(root, paths)
	l.Truncated = full
	l.Warning = why + ": the folder was walked, minus .gitignore, and the tracked files the index names were added"
	return l, nil
}

// excludeRules are the rules of the repository's info/exclude (a
// worktree shares the main checkout's), which the
// walk applies from the root down when the project is the repository's
// top (in a folder of it, the patterns would be anchored elsewhere).
func excludeRules(gitDir, prefix string) []gitignore.Rule {
	if prefix != "" {
		return nil
	}
	b, _, err := fsutil.ReadRegular(filepath.Join(commonDir(gitDir), "info", "exclude"), maxIgnoreFile)
	if err != nil {
		return nil
	}
	return gitignore.Parse("", string(b))
}

// readShared reads the shared index a split index is based on: it sits
// beside the index, or in the common git folder.
func readShared(dir, hexName string, hs int, lim Limits) (*names, error) {
	name := "sharedindex." + hexName
	data, _, err := readIndex(filepath.Join(dir, name), lim.MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		data, _, err = readIndex(filepath.Join(commonDir(dir), name), lim.MaxBytes)
	}
	if err != nil {
		return nil, err
	}
	n, _, err := parseEntries(data, hs)
	return n, err
}

// commonDir is the folder a worktree's git folder shares with the main
// one (config, objects), as its "commondir" file says; dir itself for a
// main git folder.
func commonDir(dir string) string {
	b, _, err := fsutil.ReadRegular(filepath.Join(dir, "commondir"), 4096)
	if err != nil {
		return dir
	}
	common := strings.TrimSpace(string(b))
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	return filepath.Clean(common)
}

// hashSize is the length of the repository's object names: 32 bytes when
// its config (a worktree's is in the common folder) says objectformat is
// sha256, else 20.
func hashSize(dir string) int {
	b, _, err := fsutil.ReadRegular(filepath.Join(commonDir(dir), "config"), 1<<20)
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

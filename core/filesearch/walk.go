package filesearch

import (
	"context"
	"fmt"
	"github.com/pi-tui/pi-tui/internal/gitignore"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// maxIgnoreFile bounds one .gitignore read.
const maxIgnoreFile = 1 << 20

// walk lists root's files through an os.Root, so no link leads it out of
// the project: folders are entered only when they are real folders (a
// link to a folder is listed as a file and opening it later fails), and
// .gitignore files are opened without blocking. ".git" is skipped; every
// other folder, node_modules included, only when a .gitignore says so.
// rules apply from the root down (a repository's info/exclude).
func walk(ctx context.Context, root string, lim Limits, rules []gitignore.Rule) (*List, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the project folder: %v", fsutil.PlainError(err))
	}
	defer r.Close()
	w := &walker{ctx: ctx, r: r, fsys: r.FS(), lim: lim}
	if err := w.dir(".", 0, rules); err != nil {
		return nil, err
	}
	l := newList(root, w.paths)
	l.Truncated = w.full
	return l, nil
}

type walker struct {
	ctx   context.Context
	r     *os.Root
	fsys  fs.FS
	lim   Limits
	paths []string
	full  bool
}

// dir lists one folder; rules are the ignore rules of its ancestors.
func (w *walker) dir(rel string, depth int, rules []gitignore.Rule) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	ents, err := fs.ReadDir(w.fsys, rel)
	if err != nil {
		if rel == "." {
			return fmt.Errorf("cannot list the project folder: %v", fsutil.PlainError(err))
		}
		return nil // an unreadable folder is left out, as git would
	}
	base := rel
	if rel == "." {
		base = ""
	}
	for _, e := range ents {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if text, ok := w.readSmall(path.Join(rel, ".gitignore")); ok {
				rules = append(rules[:len(rules):len(rules)], gitignore.Parse(base, text)...)
			}
			break
		}
	}
	for _, e := range ents {
		name := e.Name()
		if name == ".git" || !printable(name) {
			continue
		}
		p := name
		if base != "" {
			p = base + "/" + name
		}
		isDir := e.IsDir()
		if gitignore.Ignored(rules, p, isDir) {
			continue
		}
		if isDir {
			if depth+1 > w.lim.MaxDepth {
				continue
			}
			if err := w.dir(p, depth+1, rules); err != nil {
				return err
			}
			if w.full {
				return nil
			}
			continue
		}
		if t := e.Type(); !t.IsRegular() && t&fs.ModeSymlink == 0 {
			continue // FIFOs, sockets, devices
		}
		if len(w.paths) >= w.lim.MaxFiles {
			w.full = true
			return nil
		}
		w.paths = append(w.paths, p)
	}
	return nil
}

// readSmall reads a small regular file without blocking.
func (w *walker) readSmall(rel string) (string, bool) {
	f, err := w.r.OpenFile(rel, os.O_RDONLY|fsutil.ONonblock, 0)
	if err != nil {
		return "", false
	}
	f, _, err = fsutil.CheckRegular(f)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	return string(b), err == nil
}

// printable reports whether a name holds no control character.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return false
		}
	}
	return true
}

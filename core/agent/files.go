package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pi-tui/pi-tui/core/confine"
	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// project is one tool call's access to the project's files. Every open,
// listing, walk, write and rename goes through an os.Root on the project
// root, which resolves each path element on an open directory descriptor
// and refuses any link that leads out. So a folder swapped for a link
// while a tool runs cannot send the tool outside: there is no gap between
// the check (confine.Path) and the use.
//
// Paths are first made canonical by confine.Path, which is what keeps a
// project's absolute links that point inside it working: os.Root refuses
// every absolute link, and a canonical path has none.
//
// A project of several folders (ADR 0085) is one project per folder, each
// with its own os.Root: a link in one folder cannot lead into another.
type project struct {
	root string
	r    *os.Root
	// prefix is "NAME:" for a folder other than the primary root: the
	// names grep and find print are written so, as the tools take them.
	prefix string
}

func (p *project) close() { p.r.Close() }

// shown writes a name of the root's io/fs view as the model reads it.
func (p *project) shown(name string) string { return p.prefix + name }

// files is one tool call's access to the session's folders: a path is
// resolved to its folder (confine.Folders), whose root is opened once.
type files struct {
	folders confine.Folders
	open    map[int]*project
}

func newFiles(folders confine.Folders) *files {
	return &files{folders: folders, open: map[int]*project{}}
}

// resolve makes path canonical in the folder it names and returns that
// folder opened.
func (f *files) resolve(path string) (*project, confine.Place, error) {
	pl, err := f.folders.Resolve(path)
	if err != nil {
		return nil, pl, err
	}
	if p := f.open[pl.Index]; p != nil {
		return p, pl, nil
	}
	r, err := confine.OpenRootOf(pl)
	if err != nil {
		return nil, pl, err
	}
	p := &project{root: pl.Folder.Root, r: r}
	if pl.Index > 0 {
		p.prefix = pl.Folder.Name + ":"
	}
	f.open[pl.Index] = p
	return p, pl, nil
}

func (f *files) close() {
	for _, p := range f.open {
		p.close()
	}
}

// rel turns a canonical path inside the root (from confine.Path) into the name
// os.Root takes.
func (p *project) rel(canon string) string { return confine.RootName(p.root, canon) }

// fsName is rel for the io/fs view of the root (slash-separated).
func (p *project) fsName(canon string) string { return filepath.ToSlash(p.rel(canon)) }

// writeError words a failed write or edit of name.
func writeError(op, name string, err error) error {
	return fmt.Errorf("%s %s: %s", op, name, confine.Reason(err))
}

// openRegular opens a file for reading without blocking and returns it
// only when the opened descriptor is a regular file: a FIFO, socket or
// device is refused, never waited on.
func (p *project) openRegular(canon string) (*os.File, fs.FileInfo, error) {
	return confine.OpenRegular(p.r, p.rel(canon))
}

// maxEditBytes bounds the file edit loads whole.
const maxEditBytes = 64 << 20

// fileDir is the open directory of a file about to be written or edited,
// with the file's name in it. Everything the write does happens relative
// to the open directory.
type fileDir struct {
	d    *os.Root
	name string
}

func (fd fileDir) close() { fd.d.Close() }

// openDir opens the directory that holds canon (creating it first when
// create is set) and checks that it is still the canonical directory
// confine.Path found, so a decision made on the canonical path (such as
// whether writing it needs approval) holds for the write.
func (p *project) openDir(canon string, create bool) (fileDir, error) {
	rel := p.rel(canon)
	if rel == "." {
		return fileDir{}, errors.New("it is the project root, a directory")
	}
	dir, name := filepath.Dir(rel), filepath.Base(rel)
	if create && dir != "." {
		if err := p.r.MkdirAll(dir, 0o755); err != nil {
			return fileDir{}, err
		}
	}
	d, err := p.r.OpenRoot(dir)
	if err != nil {
		return fileDir{}, err
	}
	if !isDirectoryAt(d, filepath.Dir(canon)) {
		d.Close()
		return fileDir{}, errors.New("its folder was moved or replaced while the tool ran; nothing was written")
	}
	return fileDir{d: d, name: name}, nil
}

// readRegular reads the whole file (bounded) through the open directory.
func (fd fileDir) readRegular() ([]byte, fs.FileInfo, error) {
	f, fi, err := confine.OpenRegular(fd.d, fd.name)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if fi.Size() > maxEditBytes {
		return nil, fi, fmt.Errorf("it is %d MiB, more than the %d MiB edit works on; change it with bash", fi.Size()>>20, maxEditBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxEditBytes+1))
	if err == nil && len(data) > maxEditBytes {
		err = fmt.Errorf("it grew past %d MiB while being read", maxEditBytes>>20)
	}
	return data, fi, err
}

// write replaces the file atomically with data. An existing file keeps
// its mode (a new one gets 0644); anything but a regular file there is
// refused rather than replaced.
func (fd fileDir) write(data []byte) error {
	mode := fs.FileMode(0o644)
	fi, err := fd.d.Lstat(fd.name)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return &fsutil.NotRegularError{Mode: fi.Mode()}
	case err == nil:
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return atomicfile.WriteIn(fd.d, fd.name, data, mode)
}

// Package agentsmd loads and saves an instruction file (R/AGENTS.md, the
// global A/AGENTS.md, or whichever candidate wins at a root) for editing.
// Saves are atomic (a temp file renamed over the original, mode kept), never
// write through a link that leaves the root, and notice when the file changed
// on disk since it was loaded, so an editor can ask instead of clobbering.
package agentsmd

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/internal/atomicfile"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// MaxEditBytes is the largest file the built-in editor takes; bigger files
// are for $EDITOR (the chain budget is 32 KiB anyway).
const MaxEditBytes = 1 << 20

// ErrChangedOnDisk is returned by Save when the file is no longer what was
// loaded.
var ErrChangedOnDisk = errors.New("the file changed on disk since it was loaded")

// Doc is a file opened for editing.
type Doc struct {
	Root    string // canonical directory the file must stay inside
	Path    string // the file as named (root/name)
	Target  string // where writes go: Path, or a link's target inside Root
	Content string // the text as loaded
	Exists  bool
	Mode    fs.FileMode
	sum     [32]byte // hash of the bytes on disk at load; zero when missing
}

// Load opens root/name for editing. A missing file loads empty (Exists is
// false). It refuses what an editor must not touch: a link leaving root, a
// directory, FIFO or device, a file too big to edit here, or invalid UTF-8.
func Load(root, name string) (Doc, error) {
	canon, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Doc{}, fmt.Errorf("open %s: %w", filepath.Join(root, name), fsutil.PlainError(err))
	}
	d := Doc{Root: canon, Path: filepath.Join(canon, name), Mode: 0o644}
	target, err := d.target()
	if err != nil {
		return Doc{}, err
	}
	d.Target = target
	data, fi, err := readRegular(target)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return Doc{}, fmt.Errorf("open %s: %w", d.Path, err)
	}
	if !utf8.Valid(data) {
		return Doc{}, fmt.Errorf("open %s: the file is not valid UTF-8; edit it with $EDITOR (ctrl+e) so no byte is changed behind your back", d.Path)
	}
	d.Content, d.Exists, d.Mode, d.sum = string(data), true, fi.Mode().Perm(), sha256.Sum256(data)
	return d, nil
}

// target resolves where writes to d.Path land, refusing links that leave
// the root (or dangle outside it).
func (d Doc) target() (string, error) {
	fi, err := os.Lstat(d.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return d.Path, nil
	}
	if err != nil {
		return "", fmt.Errorf("open %s: %w", d.Path, fsutil.PlainError(err))
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return d.Path, nil
	}
	real, err := filepath.EvalSymlinks(d.Path)
	if err != nil {
		// A dangling link: where would it write? Resolve its directory.
		dest, rerr := os.Readlink(d.Path)
		if rerr != nil {
			return "", fmt.Errorf("open %s: %w", d.Path, fsutil.PlainError(err))
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(d.Path), dest)
		}
		dir, derr := filepath.EvalSymlinks(filepath.Dir(dest))
		if derr != nil {
			return "", fmt.Errorf("open %s: it is a link to %s, which does not exist", d.Path, dest)
		}
		real = filepath.Join(dir, filepath.Base(dest))
	}
	if !fsutil.Within(d.Root, real) {
		return "", fmt.Errorf("open %s: it is a link to %s, outside %s; pi-tui will not write through it", d.Path, real, d.Root)
	}
	return real, nil
}

// readRegular reads a regular file without ever opening a FIFO or device.
func readRegular(path string) ([]byte, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fsutil.PlainError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("it is not a regular file (%s)", fsutil.Kind(fi.Mode()))
	}
	if fi.Size() > MaxEditBytes {
		return nil, nil, fmt.Errorf("it is %d bytes, too big for the built-in editor (max %d); edit it with $EDITOR (ctrl+e)", fi.Size(), MaxEditBytes)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fsutil.PlainError(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
	if err != nil {
		return nil, nil, fsutil.PlainError(err)
	}
	if len(data) > MaxEditBytes {
		return nil, nil, fmt.Errorf("it is over %d bytes, too big for the built-in editor; edit it with $EDITOR (ctrl+e)", MaxEditBytes)
	}
	return data, fi, nil
}

// ChangedOnDisk reports whether the file on disk is no longer what d
// loaded (changed, created, or deleted).
func (d Doc) ChangedOnDisk() (bool, error) {
	data, _, err := readRegular(d.Target)
	if errors.Is(err, fs.ErrNotExist) {
		return d.Exists, nil
	}
	if err != nil {
		return false, fmt.Errorf("check %s: %w", d.Path, err)
	}
	return !d.Exists || sha256.Sum256(data) != d.sum, nil
}

// Save writes content atomically: a temp file in the target's directory,
// synced, renamed over the target, with the file's mode kept. Unless
// overwrite is true it first checks that the file is still what was loaded
// and returns ErrChangedOnDisk otherwise, writing nothing. The returned Doc
// is based on what was written.
func Save(d Doc, content string, overwrite bool) (Doc, error) {
	target, err := d.target() // the link may have been changed since Load
	if err != nil {
		return d, err
	}
	d.Target = target
	if !overwrite {
		changed, err := d.ChangedOnDisk()
		if err != nil {
			return d, err
		}
		if changed {
			return d, ErrChangedOnDisk
		}
	}
	if fi, err := os.Stat(target); err == nil {
		if !fi.Mode().IsRegular() {
			return d, fmt.Errorf("save %s: it is %s now, not a file; nothing was written", d.Path, fsutil.Kind(fi.Mode()))
		}
		d.Mode = fi.Mode().Perm()
	}
	data := []byte(content)
	if err := atomicfile.Write(target, data, d.Mode); err != nil {
		return d, fmt.Errorf("save %s: %w; the file on disk is unchanged", d.Path, err)
	}
	d.Content, d.Exists, d.sum = content, true, sha256.Sum256(data)
	return d, nil
}

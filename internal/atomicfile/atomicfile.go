// Package atomicfile replaces files so that a reader, or the file after a
// crash, holds the old content or the new one, never a mix: the data goes
// to a temp file in the same directory, is synced, gets its mode, and is
// renamed over the target; then the directory is synced.
package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Write replaces path with data, with mode perm. path itself is replaced:
// callers that must write through a link resolve it first, since where a
// write may go is their decision. Nothing is left behind on failure.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fsutil.PlainError(err)
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fsutil.PlainError(err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the rename is durable once the directory is synced
		d.Close()
	}
	return nil
}

// WriteIn replaces the file name (one path element, no separators) in the
// directory dir with data, with mode perm. Every step — creating the temp
// file, the rename, the directory sync — goes through dir's open
// descriptor, so a directory swapped for a link while the write runs
// cannot move the file anywhere else. Nothing is left behind on failure.
func WriteIn(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
	if name == "" || name == "." || name == ".." || filepath.Base(name) != name {
		return errors.New("not a file name: " + name)
	}
	var tmp *os.File
	var tmpName string
	for range 100 {
		tmpName = "." + name + ".tmp-" + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err := dir.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fsutil.PlainError(err)
		}
		tmp = f
		break
	}
	if tmp == nil {
		return errors.New("no free temporary file name")
	}
	_, err := tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmpName, name)
	}
	if err != nil {
		dir.Remove(tmpName)
		return fsutil.PlainError(err)
	}
	if d, err := dir.Open("."); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

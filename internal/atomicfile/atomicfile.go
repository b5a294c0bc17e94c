// Package atomicfile replaces files so that a reader, or the file after a
// crash, holds the old content or the new one, never a mix: the data goes
// to a temp file in the same directory, is synced, gets its mode, and is
// renamed over the target; then the directory is synced.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"

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

//go:build !unix

package instructions

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// oNonblock has no equivalent here; non-regular files are refused by stat
// before they are opened.
const oNonblock = 0

// fileID wraps os.FileInfo: without dev/inode numbers, os.SameFile is the
// portable way to compare files.
type fileID struct{ fi os.FileInfo }

func sameFile(a, b fileID) bool {
	return a.fi != nil && b.fi != nil && os.SameFile(a.fi, b.fi)
}

// sysCtx keeps the shape of the unix variant; nothing here fills buf or
// log (without ctimes no root chain is remembered, see rootMemo).
type sysCtx struct {
	buf   []byte
	log   *probeLog
	loose bool
}

// dirKey: without a ctime (and device/inode numbers) a directory's state
// cannot be told apart reliably, so nothing is cached here.
func (fi fileInfo) dirKey() (dirKey, bool) { return dirKey{}, false }

func (s *sysCtx) lstatIn(dir, name string) (fileInfo, error) {
	return s.lstat(filepath.Join(dir, name))
}

func (s *sysCtx) lstat(path string) (fileInfo, error) { return statWith(os.Lstat, path) }

func (s *sysCtx) stat(path string) (fileInfo, error) { return statWith(os.Stat, path) }

func statWith(f func(string) (os.FileInfo, error), path string) (fileInfo, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return fileInfo{}, os.ErrInvalid
	}
	fi, err := f(path)
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{kind: kindOfMode(fi.Mode()), size: fi.Size(), id: fileID{fi}}, nil
}

func readBounded(path string, want fileInfo, limit int, hook func(int)) (data []byte, size int64, complete bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() || !sameFile(fileID{fi}, want.id) {
		return nil, 0, false, errChanged
	}
	size = fi.Size()
	n := limit
	if size < int64(limit) {
		n = int(size)
	}
	buf := make([]byte, n)
	off, err := io.ReadFull(f, buf)
	if hook != nil {
		hook(off)
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, 0, false, err
	}
	return buf[:off], size, int64(off) == size, nil
}

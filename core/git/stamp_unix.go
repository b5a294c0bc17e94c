//go:build unix

package git

import (
	"io/fs"
	"syscall"
)

// changeID adds what a rewrite cannot keep from a file's mtime and size:
// its inode and change time (which, unlike the mtime, no one can set
// back).
func changeID(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec)
	}
	return 0, 0
}

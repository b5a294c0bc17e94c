//go:build unix

package checkpoints

import (
	"io/fs"
	"syscall"
)

// sysKey adds what the platform's stat has: ctime, inode and device.
func sysKey(fi fs.FileInfo, k *statKey) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	k.ino, k.dev = uint64(st.Ino), uint64(st.Dev)
	k.ctime = ctimeOf(st)
}

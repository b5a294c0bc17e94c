//go:build darwin

package instructions

import "syscall"

// statTimes returns mtime and ctime in nanoseconds.
func statTimes(st *syscall.Stat_t) (mtime, ctime int64, ok bool) {
	return st.Mtimespec.Nano(), st.Ctimespec.Nano(), true
}

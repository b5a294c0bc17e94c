//go:build linux

package instructions

import "syscall"

// statTimes returns mtime and ctime in nanoseconds.
func statTimes(st *syscall.Stat_t) (mtime, ctime int64, ok bool) {
	return st.Mtim.Nano(), st.Ctim.Nano(), true
}

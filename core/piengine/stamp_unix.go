//go:build unix

package piengine

import (
	"fmt"
	"os"
	"syscall"
)

// stampOf identifies the file at path as it is now: a pi upgraded in
// place (new size, time or inode) is asked for its version again.
func stampOf(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, fmt.Errorf("pi at %s: %v", path, err)
	}
	st := stamp{path: path, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = uint64(sys.Ino)
	}
	return st, nil
}

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}

// groupAlive reports whether any process of the group led by pid is left.
func groupAlive(pid int) bool {
	return syscall.Kill(-pid, 0) == nil
}

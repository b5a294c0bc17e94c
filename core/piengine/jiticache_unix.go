//go:build unix

package piengine

import (
	"os"
	"syscall"
)

// ownFolder makes dir (0700) if it is missing and reports whether it is a
// folder (not a link) of this user's that nobody else may write to.
func ownFolder(dir string) bool {
	os.Mkdir(dir, 0o700) // an existing one is checked as it is
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid() && fi.Mode().Perm()&0o022 == 0
}

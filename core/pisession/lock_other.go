//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package pisession

import "os"

// tryLock: no advisory locks here; appends rely on O_APPEND alone.
func tryLock(*os.File) (bool, error) { return true, errNoLocking }

func unlockFile(*os.File) {}

func isReadOnlyFS(error) bool { return false }

const openNonblock = 0

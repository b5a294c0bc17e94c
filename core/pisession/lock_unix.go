//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package pisession

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive advisory lock on f without waiting. Writers
// of this package take it around each append, so two pi-tui processes
// never interleave their lines; pi takes no lock, and relies (as this
// package does too) on O_APPEND and one write per line. A file system
// without flock support appends unlocked.
func tryLock(f *os.File) (locked bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, syscall.EWOULDBLOCK), errors.Is(err, syscall.EINTR):
		return false, nil
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOSYS):
		return true, errNoLocking
	}
	return false, err
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

func isReadOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }

// openNonblock keeps Open from hanging on a FIFO named like a session; a
// regular file ignores it.
const openNonblock = syscall.O_NONBLOCK

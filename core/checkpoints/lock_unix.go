//go:build unix

package checkpoints

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path without waiting; nil unlock
// (and no error) means another process holds it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, err
	}
	return release(f), nil
}

// release unlocks f before closing it. Closing alone is not enough: a
// child another goroutine is forking at that moment shares the open file
// (until its exec closes it) and with it the lock, so the next clean or
// append of this process would find it still held. LOCK_UN frees the
// lock for every holder of the file.
func release(f *os.File) func() {
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// lockWait takes an exclusive lock on path, waiting for it (a journal's
// appends by two processes).
func lockWait(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return release(f), nil
}

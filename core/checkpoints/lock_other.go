//go:build !unix

package checkpoints

import "os"

// lockFile creates path; without flock two cleaners may run at once,
// which costs only time (each removes what nothing refers to).
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// lockWait is lockFile where there is no flock: two processes' appends
// may then number a change twice (the later one is not listed).
func lockWait(path string) (unlock func(), err error) { return lockFile(path) }

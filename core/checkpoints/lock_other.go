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

package agent

import (
	"os"
	"strconv"
)

// isDirectoryAt reports whether the open directory d is, right now, the
// directory at the canonical path want. The kernel names an open
// descriptor's current path in /proc/self/fd; without /proc the check
// cannot be made and passes (os.Root still keeps d inside the root).
func isDirectoryAt(d *os.Root, want string) bool {
	f, err := d.Open(".")
	if err != nil {
		return false
	}
	defer f.Close()
	got, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(f.Fd()), 10))
	if err != nil {
		return true
	}
	return got == want
}

//go:build unix

package fsutil

import "syscall"

// ONonblock makes an open of a FIFO return at once instead of waiting for
// a writer. It changes nothing for regular files.
const ONonblock = syscall.O_NONBLOCK

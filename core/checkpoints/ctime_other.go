//go:build unix && !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package checkpoints

import "syscall"

// ctimeOf is 0 where pi-tui does not know the field: mtime, size, inode
// and mode still decide.
func ctimeOf(*syscall.Stat_t) int64 { return 0 }

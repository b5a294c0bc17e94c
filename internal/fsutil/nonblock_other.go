//go:build !unix

package fsutil

// ONonblock is 0 where opening a FIFO does not wait for a writer this way.
const ONonblock = 0

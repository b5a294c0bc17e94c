//go:build !unix

package store

// freeBytes is unknown here: I/O errors keep SQLite's own description.
func freeBytes(string) (uint64, bool) { return 0, false }

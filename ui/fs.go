package ui

import "os"

// mkdirAll creates a directory for a file the user is about to save.
func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

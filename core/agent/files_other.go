//go:build !linux

package agent

import "os"

// isDirectoryAt cannot ask the kernel for an open directory's path here;
// os.Root still keeps d inside the root.
func isDirectoryAt(*os.Root, string) bool { return true }

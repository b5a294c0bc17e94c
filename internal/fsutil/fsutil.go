// Package fsutil holds two small path and error helpers that several
// packages need and that must behave the same everywhere.
package fsutil

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// Within reports whether p is root or lies below it. Both must be clean
// absolute paths; the root "/" holds every absolute path.
func Within(root, p string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// PlainError drops a *fs.PathError's "op path:" prefix: callers name the
// file themselves in their sentence, often with the path the user typed.
func PlainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

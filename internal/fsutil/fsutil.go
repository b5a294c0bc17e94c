// Package fsutil holds small path, error and file-opening helpers that
// several packages need and that must behave the same everywhere.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// NotRegularError says that a file is not a regular file, and what it is
// instead, so a FIFO or a device is refused with a sentence.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string { return "not a regular file; it is " + Kind(e.Mode) }

// Kind names a file type for messages.
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
}

// OpenRegular opens path for reading without ever blocking: the open is
// non-blocking (a FIFO with no writer does not stall it) and the file type
// is checked on the opened descriptor, never by a stat before the open, so
// a file swapped for a FIFO in between is still refused. Anything but a
// regular file is closed again and reported as a *NotRegularError; the
// FileInfo is returned with it.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|ONonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	return CheckRegular(f)
}

// CheckRegular returns f when fstat says it is a regular file; otherwise
// it closes f and returns a *NotRegularError.
func CheckRegular(f *os.File) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &NotRegularError{Mode: fi.Mode()}
	}
	return f, fi, nil
}

// ReadRegular reads a whole regular file of at most limit bytes, opened as
// OpenRegular does. A larger file is an error rather than a silent cut.
func ReadRegular(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, fi, fmt.Errorf("larger than %d bytes", limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fi, err
	}
	if int64(len(data)) > limit {
		return nil, fi, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, fi, nil
}

// ReadHeadIn reads at most the first limit bytes of name inside root, as
// OpenRegular opens: through root (no path out of it), without blocking,
// the type checked on the descriptor (anything but a regular file is a
// *NotRegularError). A longer file is cut at limit, not refused.
func ReadHeadIn(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|ONonblock, 0)
	if err != nil {
		return nil, err
	}
	f, _, err = CheckRegular(f)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Opening files inside a root: every open goes through an os.Root on it,
// which resolves each path element on an open directory and refuses any
// link that leads out, so a folder swapped for a link between the check
// (Path) and the use cannot send the open outside.

// OpenRoot opens root for opens confined to it.
func OpenRoot(root string) (*os.Root, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("the project root %s cannot be opened: %v", root, fsutil.PlainError(err))
	}
	return r, nil
}

// RootName turns a canonical path inside root (from Path) into the name
// an os.Root on root takes.
func RootName(root, canon string) string {
	rel, err := filepath.Rel(root, canon)
	if err != nil {
		return canon // not inside: os.Root refuses it
	}
	return rel
}

// OpenRegular opens name in r for reading without blocking and returns
// it only when the opened descriptor is a regular file: a FIFO, socket or
// device is refused, never waited on.
func OpenRegular(r *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|fsutil.ONonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	return fsutil.CheckRegular(f)
}

// ReadPreview returns up to limit bytes of the file at path (relative to
// root, or absolute inside it) for showing it to the user, such as the
// diff an approval shows. The path is made canonical as the tools do, then
// opened through an os.Root on root, without blocking, and refused unless
// the opened file is a regular file: a hostile repository can neither hang
// the preview with a FIFO nor redirect it outside with a link swapped in.
func ReadPreview(root, path string, limit int64) ([]byte, error) {
	canon, err := Path(root, path)
	if err != nil {
		return nil, err
	}
	r, err := OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, _, err := OpenRegular(r, RootName(root, canon))
	if err != nil {
		return nil, FileError(Rel(root, canon), err)
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max(limit, 0)))
}

// FileError words an error of a root-bound operation on name (as the
// model wrote it, or relative to the root) as one sentence.
func FileError(name string, err error) error {
	var nr *fsutil.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("%s is %w", name, nr)
	}
	return &causedError{msg: name + ": " + Reason(err), cause: err}
}

// causedError is a sentence for the model that still answers errors.Is
// and errors.As for its cause (fs.ErrNotExist, a NotRegularError), so
// callers such as the approval preview can tell a new file from a
// failure.
type causedError struct {
	msg   string
	cause error
}

func (e *causedError) Error() string { return e.msg }
func (e *causedError) Unwrap() error { return e.cause }

// Reason is the part of a file error that says what went wrong.
func Reason(err error) string {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return "a link on the way leads outside the project root (it may have changed while the tool ran); nothing outside was touched"
	}
	return fsutil.PlainError(err).Error()
}

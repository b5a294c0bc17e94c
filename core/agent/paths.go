package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Confine turns a path a model named into a canonical path inside root.
// Relative paths are relative to root. The path need not exist (a file
// about to be written): its deepest existing ancestor is resolved and the
// rest appended. A path that leaves root, lexically or through a link, is
// refused with a sentence the model can act on.
func Confine(root, p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", errors.New("the path contains a NUL byte")
	}
	if strings.TrimSpace(p) == "" {
		p = "."
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	abs = filepath.Clean(abs)
	rest := ""
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			full := filepath.Join(real, rest)
			if !fsutil.Within(root, full) {
				return "", fmt.Errorf("%s is outside the project root %s (paths and links may not leave it)", p, root)
			}
			return full, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			if strings.Contains(err.Error(), "too many links") {
				return "", fmt.Errorf("%s goes through a loop of symbolic links", p)
			}
			return "", fmt.Errorf("%s: %v", p, fsutil.PlainError(err))
		}
		// A dangling link must not let a write escape: refuse it.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a link to a missing target", displayRel(root, cur))
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", fmt.Errorf("%s cannot be resolved", p)
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// displayRel writes p relative to root for messages to the model.
func displayRel(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// ReadPreview returns up to limit bytes of the file at path (canonical,
// inside root) for showing it to the user, such as the diff an approval
// shows. It opens through the root, never blocks on a FIFO and refuses
// anything but a regular file, so a hostile repository cannot hang or
// redirect the preview.
func ReadPreview(root, path string, limit int64) ([]byte, error) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is outside the project root", path)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fsutil.PlainError(err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fsutil.PlainError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fsutil.PlainError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("it is not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

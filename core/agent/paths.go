package agent

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

// ReadPreview returns up to limit bytes of the file at path (relative to
// root, or absolute inside it) for showing it to the user, such as the
// diff an approval shows. The path is made canonical as the tools do, then
// opened through an os.Root on root, without blocking, and refused unless
// the opened file is a regular file: a hostile repository can neither hang
// the preview with a FIFO nor redirect it outside with a link swapped in.
func ReadPreview(root, path string, limit int64) ([]byte, error) {
	canon, err := Confine(root, path)
	if err != nil {
		return nil, err
	}
	p, err := openProject(root)
	if err != nil {
		return nil, err
	}
	defer p.close()
	f, _, err := p.openRegular(canon)
	if err != nil {
		return nil, fileError(displayRel(root, canon), err)
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max(limit, 0)))
}

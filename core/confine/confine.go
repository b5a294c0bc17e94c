// Package confine keeps a path a model or a tool call names inside the
// root a session is bound to: the path made canonical (links resolved,
// none leading out), and a file opened through an os.Root on the root,
// never a FIFO or device. The built-in engine's file tools, the pi
// bridge's approvals and the approval dialog's preview all confine here,
// so a path is judged the same whoever asks.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// Path turns a path a model named into a canonical path inside root.
// Relative paths are relative to root. The path need not exist (a file
// about to be written): its deepest existing ancestor is resolved and the
// rest appended. A path that leaves root, lexically or through a link, is
// refused with a sentence the model can act on.
func Path(root, p string) (string, error) {
	abs, err := absolute(root, p)
	if err != nil {
		return "", err
	}
	full, err := resolve(root, p, abs)
	if err != nil {
		return "", err
	}
	if !fsutil.Within(root, full) {
		return "", fmt.Errorf("%s is outside the project root %s (paths and links may not leave it)", p, root)
	}
	return full, nil
}

// absolute is p made absolute (relative to root) and clean, or why it
// cannot be a path; "" and blanks are the root.
func absolute(root, p string) (string, error) {
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
	return filepath.Clean(abs), nil
}

// resolve makes abs (absolute and clean) canonical: its deepest existing
// ancestor with every link resolved, the rest appended. It keeps it
// nowhere: the caller checks where it leads. A link to nothing on the way
// is refused, so a write cannot create a file where it points. p is the
// path as the model wrote it and root the folder messages are relative
// to.
func resolve(root, p, abs string) (string, error) {
	rest := ""
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			if strings.Contains(err.Error(), "too many links") {
				return "", fmt.Errorf("%s goes through a loop of symbolic links", p)
			}
			return "", fmt.Errorf("%s: %v", p, fsutil.PlainError(err))
		}
		// A dangling link must not let a write escape: refuse it.
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a link to a missing target", Rel(root, cur))
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", fmt.Errorf("%s cannot be resolved", p)
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Rel writes p relative to root for messages to the model (a file named
// "..x" in the root too); a path outside root is written as it is.
func Rel(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return p
}

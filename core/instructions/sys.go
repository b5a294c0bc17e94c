package instructions

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// fileKind is the type of a directory entry as seen by lstat or stat.
type fileKind uint8

const (
	kindOther fileKind = iota
	kindRegular
	kindDir
	kindSymlink
	kindFIFO
	kindSocket
	kindCharDev
	kindBlockDev
)

func (k fileKind) String() string {
	switch k {
	case kindRegular:
		return "regular file"
	case kindDir:
		return "directory"
	case kindSymlink:
		return "symbolic link"
	case kindFIFO:
		return "fifo"
	case kindSocket:
		return "socket"
	case kindCharDev:
		return "character device"
	case kindBlockDev:
		return "block device"
	}
	return "irregular file"
}

func kindOfMode(m fs.FileMode) fileKind {
	switch {
	case m.IsRegular():
		return kindRegular
	case m&fs.ModeDir != 0:
		return kindDir
	case m&fs.ModeSymlink != 0:
		return kindSymlink
	case m&fs.ModeNamedPipe != 0:
		return kindFIFO
	case m&fs.ModeSocket != 0:
		return kindSocket
	case m&fs.ModeCharDevice != 0:
		return kindCharDev
	case m&fs.ModeDevice != 0:
		return kindBlockDev
	}
	return kindOther
}

// fileInfo is the little the resolver needs from a stat call. It is a plain
// value so the hot path allocates nothing per candidate.
type fileInfo struct {
	kind fileKind
	size int64
	id   fileID
	// mtime and ctime (nanoseconds) are set where timed is true: on
	// platforms whose stat exposes both (see statTimes).
	mtime, ctime int64
	timed        bool
}

// errChanged reports that a file was replaced between stat and open.
var errChanged = errors.New("changed while being read")

func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func isPermission(err error) bool {
	return errors.Is(err, fs.ErrPermission)
}

// shortErr turns an error into the short lower-case phrase used as a skip
// reason, without the path the caller already reports.
func shortErr(err error) string {
	switch {
	case isPermission(err):
		return "permission denied"
	case isLoop(err):
		return "link loop"
	case isNotExist(err):
		return "does not exist"
	case errors.Is(err, errChanged):
		return errChanged.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

func isLoop(err error) bool {
	if errors.Is(err, syscall.ELOOP) {
		return true
	}
	// filepath.EvalSymlinks reports a loop as a plain error.
	return err != nil && strings.Contains(err.Error(), "too many links")
}

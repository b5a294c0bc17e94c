//go:build unix

package instructions

import "syscall"

// oNonblock makes opening a FIFO return at once instead of waiting for a
// writer. Files are checked with stat before they are opened; this is the
// belt to those braces, for a file swapped in between.
const oNonblock = syscall.O_NONBLOCK

// fileID identifies a file independent of the path used to reach it, so that
// hard links, symlinks and case-insensitive file systems dedupe correctly.
type fileID struct{ dev, ino uint64 }

func sameFile(a, b fileID) bool { return a == b }

func infoFromStat(st *syscall.Stat_t) fileInfo {
	var k fileKind
	switch uint32(st.Mode) & syscall.S_IFMT {
	case syscall.S_IFREG:
		k = kindRegular
	case syscall.S_IFDIR:
		k = kindDir
	case syscall.S_IFLNK:
		k = kindSymlink
	case syscall.S_IFIFO:
		k = kindFIFO
	case syscall.S_IFSOCK:
		k = kindSocket
	case syscall.S_IFCHR:
		k = kindCharDev
	case syscall.S_IFBLK:
		k = kindBlockDev
	}
	m, c, timed := statTimes(st)
	return fileInfo{kind: k, size: int64(st.Size), id: fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, mtime: m, ctime: c, timed: timed}
}

// dirKey returns the state of a directory for dirCache; ok is false when
// fi is not a directory or the platform gives no ctime.
func (fi fileInfo) dirKey() (key dirKey, ok bool) {
	if fi.kind != kindDir || !fi.timed {
		return dirKey{}, false
	}
	return dirKey{dev: fi.id.dev, ino: fi.id.ino, mtime: fi.mtime, ctime: fi.ctime}, true
}

// sysCtx carries per-resolution scratch space: a path buffer reused for every
// stat so that probing a candidate that does not exist allocates nothing.
// A root resolution also logs its probes (see rootMemo); loose marks the
// probes of the directories above the root.
type sysCtx struct {
	buf   []byte
	log   *probeLog
	loose bool
}

// lstatIn stats dir/name without following a final symbolic link.
func (s *sysCtx) lstatIn(dir, name string) (fileInfo, error) {
	return s.statJoin(dir, name, false)
}

// lstat stats path without following a final symbolic link.
func (s *sysCtx) lstat(path string) (fileInfo, error) {
	return s.statJoin(path, "", false)
}

// stat stats path following links.
func (s *sysCtx) stat(path string) (fileInfo, error) {
	return s.statJoin(path, "", true)
}

func (s *sysCtx) statJoin(dir, name string, follow bool) (fileInfo, error) {
	var st syscall.Stat_t
	var fi fileInfo
	err := s.fstatat(dir, name, &st, follow)
	if err == nil {
		fi = infoFromStat(&st)
	}
	if s.log != nil {
		s.log.add(dir, name, follow, s.loose, fi, err)
	}
	return fi, err
}

// readBounded opens path (which must not be a link) without blocking, checks
// that it is still the regular file described by want, and reads at most
// limit bytes. The size from fstat decides how much to read, so a file that
// fits costs one read and no probe for end of file; complete reports
// whether the whole file (as of that fstat) was read. hook, when set, sees
// every read's byte count (tests use it to prove reads are bounded).
func readBounded(path string, want fileInfo, limit int, hook func(int)) (data []byte, size int64, complete bool, err error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, 0, false, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, 0, false, err
	}
	got := infoFromStat(&st)
	if got.kind != kindRegular || got.id != want.id {
		return nil, 0, false, errChanged
	}
	size = got.size
	n := limit
	if size < int64(limit) {
		n = int(size)
	}
	buf := make([]byte, n)
	off := 0
	for off < len(buf) {
		m, err := syscall.Read(fd, buf[off:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, 0, false, err
		}
		if hook != nil {
			hook(m)
		}
		if m == 0 {
			break // the file shrank since fstat
		}
		off += m
	}
	return buf[:off], size, off == int(size), nil
}

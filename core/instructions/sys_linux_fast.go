//go:build linux && (amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || mips64 || mips64le)

package instructions

import (
	"syscall"
	"unsafe"
)

const atSymlinkNofollow = 0x100

// fstatat stats dir/name (or dir alone when name is empty) relative to the
// current directory, copying the path into the reusable NUL-terminated buffer
// instead of letting syscall.Lstat allocate a C string per call. Candidates
// are mostly absent, so this keeps a resolution's allocations independent of
// how many names are probed.
func (s *sysCtx) fstatat(dir, name string, st *syscall.Stat_t, follow bool) error {
	b := append(s.buf[:0], dir...)
	if name != "" {
		if len(b) == 0 || b[len(b)-1] != '/' {
			b = append(b, '/')
		}
		b = append(b, name...)
	}
	for _, c := range b {
		if c == 0 {
			return syscall.EINVAL
		}
	}
	b = append(b, 0)
	s.buf = b
	flags := uintptr(atSymlinkNofollow)
	if follow {
		flags = 0
	}
	atFDCWD := -100
	_, _, e := syscall.Syscall6(sysFstatat, uintptr(atFDCWD), uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(st)), flags, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

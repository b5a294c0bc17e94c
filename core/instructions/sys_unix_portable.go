//go:build unix && !(linux && (amd64 || arm64 || riscv64 || ppc64 || ppc64le || s390x || mips64 || mips64le))

package instructions

import (
	"path/filepath"
	"strings"
	"syscall"
)

// fstatat is the portable variant: it lets the syscall package build the C
// string, costing one allocation per probe.
func (s *sysCtx) fstatat(dir, name string, st *syscall.Stat_t, follow bool) error {
	p := dir
	if name != "" {
		p = filepath.Join(dir, name)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return syscall.EINVAL
	}
	if follow {
		return syscall.Stat(p, st)
	}
	return syscall.Lstat(p, st)
}

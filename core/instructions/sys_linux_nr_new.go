//go:build linux && (amd64 || ppc64 || ppc64le || s390x || mips64 || mips64le)

package instructions

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT

//go:build linux && (arm64 || riscv64)

package instructions

import "syscall"

const sysFstatat = syscall.SYS_FSTATAT

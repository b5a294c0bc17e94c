//go:build !linux

package agent

import "syscall"

// bashSysProcAttr puts the shell in a process group of its own, so the
// whole group can be killed.
func bashSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

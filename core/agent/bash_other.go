//go:build !linux

package agent

import "syscall"

// bashSysProcAttr starts the shell in a session of its own, without a
// controlling terminal; the session is its process group, so the whole
// group can be killed.
func bashSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

package agent

import "syscall"

// bashSysProcAttr puts the shell in a process group of its own (so the
// whole group can be killed) and has the kernel kill the shell if pi-tui
// dies without a chance to clean up (SIGKILL). That last part is best
// effort: it reaches the shell, not what the shell started, and it fires
// when the OS thread that started the shell ends.
func bashSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

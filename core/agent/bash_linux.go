package agent

import "syscall"

// bashSysProcAttr starts the shell in a session of its own: it has no
// controlling terminal, so nothing it runs can open /dev/tty and write
// escape sequences (or inject keys) around pi-tui's escaping, and its
// session is also its process group, so the whole group can be killed.
// The kernel also kills the shell if pi-tui dies without a chance to clean
// up (SIGKILL). That last part is best effort: it reaches the shell, not
// what the shell started, and it fires when the OS thread that started the
// shell ends.
func bashSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

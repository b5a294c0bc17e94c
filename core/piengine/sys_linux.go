package piengine

import (
	"os/exec"
	"syscall"
)

// setGroup puts the child in a process group of its own (so the close
// sequence signals pi and the commands it runs together) and asks the
// kernel to kill it when pi-tui dies, however pi-tui dies.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

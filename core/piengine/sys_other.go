//go:build unix && !linux

package piengine

import (
	"os/exec"
	"syscall"
)

// setGroup puts the child in a process group of its own, so the close
// sequence signals pi and the commands it runs together. There is no
// parent-death signal outside Linux: the engine's Close and the
// finalizer of a dropped engine end the group instead.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

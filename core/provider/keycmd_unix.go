//go:build unix

package provider

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in its own process group and, when its
// context ends, kills the whole group, so a shell's children cannot keep
// the output pipe (and the caller) waiting.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

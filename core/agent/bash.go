package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/pi-tui/pi-tui/core/pisettings"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fsutil"
)

// KeepKeysEnv is the environment variable by which a user lets bash
// commands see pi-tui's provider keys ("1" or "true"). By default they are
// removed from bash's environment: a command the model runs, or a script
// in a hostile repository, has no business with them.
const KeepKeysEnv = "PI_TUI_BASH_KEEP_KEYS"

// outputDrain is how long the output of a finished command is still
// collected, once its process group is gone, from a process that left the
// group (setsid) and still holds the output open.
const outputDrain = time.Second

// toolBash runs a command with bash in the project root. Unlike the file
// tools it is not confined: it runs as the user, and the approval (in ask
// and auto-edits) is the gate. It runs in a process group of its own, and
// the whole group is killed when the command ends (so a background job
// does not outlive the call), on abort or timeout, and when pi-tui exits;
// on Linux the shell also dies with pi-tui if pi-tui is killed outright.
func toolBash(ctx context.Context, env toolEnv, raw json.RawMessage) (ToolResult, error) {
	var a struct {
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	if err := toolpolicy.DecodeArgs(raw, &a); err != nil {
		return ToolResult{}, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return ToolResult{}, errors.New("command is empty")
	}
	// No timeout means two minutes; a long one is capped at half an hour,
	// not replaced by the default.
	timeout := min(time.Duration(a.Timeout)*time.Second, 30*time.Minute)
	if a.Timeout <= 0 {
		timeout = 120 * time.Second
	}
	shell, command, err := shellCommand(env.shell, a.Command)
	if err != nil {
		return ToolResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// The output goes to a pipe this function reads itself, not through
	// exec's copying goroutines, so a background job holding the pipe
	// cannot make the call wait for it.
	pr, pw, err := os.Pipe()
	if err != nil {
		return ToolResult{}, fmt.Errorf("cannot run the command: %v", err)
	}
	defer pr.Close()
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir = env.root
	cmd.Env = bashEnv(os.Environ(), env.agentDir)
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = bashSysProcAttr()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return ToolResult{}, fmt.Errorf("cannot run the command: %v", err)
	}
	pgid := cmd.Process.Pid
	var out limitedBuffer
	var sink io.Writer = &out
	var live *liveOutput
	if env.progress != nil {
		live = newLiveOutput(env.progress)
		sink = io.MultiWriter(&out, live)
	}
	copied := make(chan struct{})
	go func() {
		io.Copy(sink, pr)
		close(copied)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var werr error
	select {
	case werr = <-exited:
	case <-ctx.Done():
		syscall.Kill(-pgid, syscall.SIGKILL)
		werr = <-exited
	}
	// The shell is gone. Whatever is left in its group was started in the
	// background: stop it, so nothing the model ran outlives the call.
	leftover := syscall.Kill(-pgid, 0) == nil
	if leftover {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	held := false
	select {
	case <-copied:
	case <-time.After(outputDrain):
		// A process outside the group still holds the output open.
		held = true
		pr.SetReadDeadline(time.Now())
		<-copied
	}
	if live != nil {
		live.close()
	}

	text := out.String()
	if out.cut {
		text += fmt.Sprintf("\n[Output cut at %d KiB.]", outputLimit/1024)
	}
	if leftover && ctx.Err() == nil {
		text += "\n[The command left processes running in the background; they were stopped when it finished. " +
			"A tool call cannot leave programs running.]"
	}
	if held {
		text += "\n[A process the command started outside its process group still holds the output open; it was not waited for.]"
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ToolResult{Text: text + fmt.Sprintf("\n[Timed out after %s; the command and everything it started were stopped.]", timeout), IsError: true}, nil
	case ctx.Err() != nil:
		return ToolResult{Text: text + "\n[Aborted; the command and everything it started were stopped.]", IsError: true}, nil
	case werr != nil:
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return ToolResult{Text: text + fmt.Sprintf("\n[Killed by signal %s.]", ws.Signal()), IsError: true}, nil
			}
			return ToolResult{Text: text + fmt.Sprintf("\n[Exit status %d.]", ee.ExitCode()), IsError: true}, nil
		}
		return ToolResult{}, fmt.Errorf("cannot run the command: %v", werr)
	}
	if text == "" {
		text = "(no output)"
	}
	return ToolResult{Text: text}, nil
}

// bashEnv is pi-tui's environment without its provider keys (see
// settings.SecretEnvNames), unless the user set KeepKeysEnv.
func bashEnv(environ []string, agentDir string) []string {
	if v := strings.ToLower(strings.TrimSpace(os.Getenv(KeepKeysEnv))); v == "1" || v == "true" || v == "yes" {
		return environ
	}
	secret := map[string]bool{}
	for _, n := range pisettings.SecretEnvNames(agentDir) {
		secret[n] = true
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !secret[name] {
			out = append(out, kv)
		}
	}
	return out
}

// shellCommand applies pi's shellPath (the shell instead of bash, which
// must exist) and shellCommandPrefix (a line run before the command).
func shellCommand(sh pisettings.Shell, command string) (shell, line string, err error) {
	shell = "bash"
	if sh.Path != "" {
		if _, err := os.Stat(sh.Path); err != nil {
			return "", "", fmt.Errorf("the shell %s set as shellPath in settings.json cannot be used: %v", sh.Path, fsutil.PlainError(err))
		}
		shell = sh.Path
	}
	if sh.Prefix != "" {
		command = sh.Prefix + "\n" + command
	}
	return shell, command, nil
}

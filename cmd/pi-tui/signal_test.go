//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// waitFor waits for f. If it blocks, the test fails shortly before the
// test binary's own deadline rather than hanging the package; there is no
// other time limit.
func waitFor[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	var limit <-chan time.Time
	if d, ok := t.Deadline(); ok {
		limit = time.After(time.Until(d) * 9 / 10)
	}
	select {
	case v := <-done:
		return v
	case <-limit:
		t.Fatalf("%s did not happen", what)
	}
	var zero T
	return zero
}

// proc is the real pi-tui binary running one headless command.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
	exit  chan *os.ProcessState
}

// until reads events until one has the given type.
func (p *proc) until(typ string) {
	p.t.Helper()
	waitFor(p.t, "event "+typ, func() bool {
		for p.lines.Scan() {
			var m map[string]any
			if json.Unmarshal(p.lines.Bytes(), &m) == nil && m["type"] == typ {
				return true
			}
		}
		return false
	})
}

func (p *proc) signalAndWait(sig os.Signal) *os.ProcessState {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	return waitFor(p.t, "exit after "+sig.String(), func() *os.ProcessState { return <-p.exit })
}

// startProc starts the binary with the cli's environment (and PATH, for
// bash). The test reads events, then calls drainThenWait.
func startProc(t *testing.T, bin string, c *cli, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: bufio.NewScanner(out), exit: make(chan *os.ProcessState, 1)}
	p.lines.Buffer(make([]byte, 1<<20), 16<<20)
	t.Cleanup(func() {
		cmd.Process.Kill()
		stdin.Close()
	})
	return p
}

// drainThenWait starts collecting the exit once the test has read what it
// needs.
func (p *proc) drainThenWait() {
	go func() {
		for p.lines.Scan() {
		}
		p.cmd.Wait()
		p.exit <- p.cmd.ProcessState
	}()
}

func holdAfter(first fakemodel.Call, hold <-chan struct{}) fakemodel.Script {
	return func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{first}}
		}
		return fakemodel.Reply{Text: "an answer that never ends", Hold: hold}
	}
}

// TestSIGTERMEndsAPromptStuckOnAFIFO: `prompt` greps a FIFO in the
// project; SIGTERM during the tool ends the process.
func TestSIGTERMEndsAPromptStuckOnAFIFO(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	c := newCLI(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	_, root := modelRig(t, c, holdAfter(fakemodel.Call{ID: "g", Name: "grep", Args: map[string]string{"pattern": "x", "path": "pipe"}}, hold))
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, bin, c, "prompt", "--project", "mono", "--json", "--yes", "grep the pipe")
	p.until("tool_execution_start")
	p.drainThenWait()
	st := p.signalAndWait(syscall.SIGTERM)
	if !st.Exited() || st.ExitCode() == 0 {
		t.Errorf("after SIGTERM: %v", st)
	}
}

// TestSIGTERMEndsRPCWithItsInputOpen: rpc mid-prompt, with its standard
// input still open, ends on SIGTERM.
func TestSIGTERMEndsRPCWithItsInputOpen(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	c := newCLI(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	modelRig(t, c, holdAfter(fakemodel.Call{ID: "l", Name: "ls", Args: map[string]string{}}, hold))
	p := startProc(t, bin, c, "rpc", "--project", "mono")
	io.WriteString(p.stdin, `{"id":"1","type":"prompt","message":"list"}`+"\n")
	p.until("message_update")
	p.drainThenWait()
	if st := p.signalAndWait(syscall.SIGTERM); !st.Exited() {
		t.Errorf("after SIGTERM: %v", st)
	}
}

// TestSignalsStopTheCommandsProcesses: SIGINT ends a running bash command
// with everything it started; SIGKILL of pi-tui still ends the command
// it was running (Pdeathsig).
func TestSignalsStopTheCommandsProcesses(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	for _, c := range []struct {
		sig     syscall.Signal
		command string
	}{
		{syscall.SIGINT, "sleep 1000 3>FIFO & sleep 1000; wait"},
		{syscall.SIGTERM, "sleep 1000 3>FIFO"},
		{syscall.SIGKILL, "exec sleep 1000 3>FIFO"}, // Pdeathsig reaches the direct child only
	} {
		t.Run(c.sig.String(), func(t *testing.T) {
			t.Parallel()
			cl := newCLI(t)
			fifo := filepath.Join(t.TempDir(), "held")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			hold := make(chan struct{})
			t.Cleanup(func() { close(hold) })
			cmd := map[string]string{"command": strings.ReplaceAll(c.command, "FIFO", fifo)}
			modelRig(t, cl, holdAfter(fakemodel.Call{ID: "b", Name: "bash", Args: cmd}, hold))
			p := startProc(t, bin, cl, "prompt", "--project", "mono", "--json", "--yes", "run it")
			// The read end opens once the command's sleep has opened the
			// write end: the command is running.
			f := waitFor(t, "the command's start", func() *os.File {
				f, err := os.Open(fifo)
				if err != nil {
					t.Error(err)
				}
				return f
			})
			if f == nil {
				return
			}
			defer f.Close()
			p.drainThenWait()
			p.signalAndWait(c.sig)
			// EOF: every process holding the write end has exited.
			waitFor(t, "the end of the command's processes", func() error { _, err := io.Copy(io.Discard, f); return err })
		})
	}
}

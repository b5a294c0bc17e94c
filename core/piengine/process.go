package piengine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// quietEnv keeps pi from reaching pi.dev on its own: no latest-version
// request and no install/update telemetry or attribution headers. Model
// catalogue refreshes stay on (PI_OFFLINE would stop them): the user's pi
// keeps its models current as it does in a terminal.
var quietEnv = []string{"PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}

// Environment variables that carry the bridge's channel (the bridge
// protocol, v1).
const (
	EnvBridgeSocket = "PI_TUI_BRIDGE_SOCKET"
	EnvBridgeToken  = "PI_TUI_BRIDGE_TOKEN"
	EnvAgentDir     = "PI_CODING_AGENT_DIR"
)

// How much of pi's stderr is kept for error messages.
const (
	stderrLines    = 20
	stderrLineMax  = 512
	defaultTerm    = 3 * time.Second
	defaultKill    = 2 * time.Second
	pipeDrainAfter = time.Second
)

// procSpec is one pi process to start.
type procSpec struct {
	argv      []string
	dir       string
	env       []string
	termGrace time.Duration // after stdin is closed, before SIGTERM
	killGrace time.Duration // after SIGTERM, before SIGKILL
	// warn is told each warning pi writes to stderr (see tail.warn).
	warn func(string)
}

// process is one running pi: its own process group, its stdin for
// commands, its stdout for records and the tail of its stderr.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	stderr *tail
	spec   procSpec

	exited  chan struct{} // closed once Wait returned
	status  string        // "exit status 1", "signal: killed"; set before exited closes
	closing sync.Once
}

// start launches pi as spec says, in a process group of its own that dies
// with pi-tui (Linux), and starts reaping it.
func start(spec procSpec) (*process, error) {
	if spec.termGrace <= 0 {
		spec.termGrace = defaultTerm
	}
	if spec.killGrace <= 0 {
		spec.killGrace = defaultKill
	}
	cmd := exec.Command(spec.argv[0], spec.argv[1:]...)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	setGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// stdout is a pipe of our own, not StdoutPipe: Wait must not close it
	// under the reader, which drains what pi wrote before it died.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	errTail := &tail{warn: spec.warn}
	cmd.Stderr = errTail
	// A command pi started may keep stderr open after pi died: Wait stops
	// waiting for it after this long.
	cmd.WaitDelay = spec.killGrace
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("cannot start pi (%s): %v", spec.argv[0], err)
	}
	outW.Close()
	p := &process{cmd: cmd, stdin: stdin, stdout: outR, stderr: errTail, spec: spec, exited: make(chan struct{})}
	go p.reap()
	return p, nil
}

func (p *process) reap() {
	err := p.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		p.status = "status 0"
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.status = "signal " + ws.Signal().String()
		} else {
			p.status = fmt.Sprintf("status %d", exit.ExitCode())
		}
	default:
		p.status = err.Error()
	}
	close(p.exited)
	// What pi wrote before it died is in the pipe; a process pi started
	// may hold the pipe open, so stop waiting for its end after a while.
	time.AfterFunc(pipeDrainAfter, func() { p.stdout.SetReadDeadline(time.Now()) })
}

// pid is pi's process id, which is also its group's id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exitError is pi's death as one message: its status and its last stderr
// lines. Call it once exited is closed.
func (p *process) exitError() *ExitError {
	return &ExitError{Status: p.status, Stderr: p.stderr.Lines()}
}

// close ends pi: stdin closed (pi's orderly shutdown), SIGTERM to the
// group after the first grace, SIGKILL after the second; it returns once
// pi is reaped.
func (p *process) close() {
	p.closing.Do(func() {
		p.stdin.Close()
		if p.wait(p.spec.termGrace) {
			return
		}
		_ = signalGroup(p.pid(), syscall.SIGTERM)
		if p.wait(p.spec.killGrace) {
			return
		}
		_ = signalGroup(p.pid(), syscall.SIGKILL)
		<-p.exited
	})
}

// kill ends the group now (a dropped engine, a wedged pi): SIGTERM first,
// so pi's own handler ends the commands its bash tool started (each in a
// group of its own, which a signal to pi's group does not reach), then
// SIGKILL a second later if pi is still there. It does not wait.
func (p *process) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = signalGroup(p.pid(), syscall.SIGTERM)
	go func() {
		if !p.wait(killAfterTerm) {
			_ = signalGroup(p.pid(), syscall.SIGKILL)
		}
	}()
}

// killAfterTerm is how long kill gives pi to end its commands.
const killAfterTerm = time.Second

func (p *process) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// ExitError says pi died: how, and the last lines it wrote to stderr.
type ExitError struct {
	Status string   // "status 1", "signal killed"
	Stderr []string // pi's last stderr lines, oldest first
}

func (e *ExitError) Error() string {
	msg := "pi exited (" + e.Status + ")"
	if len(e.Stderr) > 0 {
		msg += ": " + strings.Join(e.Stderr, " | ")
	}
	return msg
}

// Is makes errors.Is(err, ErrExited) true for every pi death.
func (e *ExitError) Is(target error) bool { return target == ErrExited }

// ErrExited is what every error of a dead pi is (errors.Is).
var ErrExited = errors.New("pi exited")

// tail keeps the last lines written to it: at most stderrLines lines of
// at most stderrLineMax bytes each, control characters escaped.
type tail struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
	// warn, when set, is told each warning pi writes, as pi prints it to
	// a terminal: "Warning: " and the lines indented under it, without
	// the word, once the write that carried it ended (pi writes one
	// warning in one write). warning holds the one being read.
	warn     func(string)
	warning  []string // the lines of the warning being read
	warnings []string // the warnings read in this write
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer func() {
		t.endWarning()
		ws := t.warnings
		t.warnings = nil
		t.mu.Unlock()
		for _, w := range ws {
			t.warn(w)
		}
	}()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if room := stderrLineMax - len(t.partial); room > 0 {
				t.partial = append(t.partial, b[:min(room, len(b))]...)
			}
			break
		}
		if room := stderrLineMax - len(t.partial); room > 0 {
			t.partial = append(t.partial, b[:min(room, i)]...)
		}
		t.push()
		b = b[i+1:]
	}
	return n, nil
}

func (t *tail) push() {
	indented := len(t.partial) > 0 && (t.partial[0] == ' ' || t.partial[0] == '\t')
	line := strings.TrimSpace(printable(bytes.TrimSuffix(t.partial, []byte("\r")), stderrLineMax))
	t.partial = t.partial[:0]
	if line == "" {
		return
	}
	if t.warn != nil {
		if rest, ok := strings.CutPrefix(line, "Warning: "); ok {
			t.endWarning()
			t.warning = append(t.warning, rest)
		} else if indented && len(t.warning) > 0 {
			t.warning = append(t.warning, line)
		} else {
			t.endWarning()
		}
	}
	if len(t.lines) == stderrLines {
		copy(t.lines, t.lines[1:])
		t.lines = t.lines[:stderrLines-1]
	}
	t.lines = append(t.lines, line)
}

// endWarning ends the warning being read, its lines indented under the
// first as pi indents them.
func (t *tail) endWarning() {
	if len(t.warning) > 0 {
		t.warnings = append(t.warnings, strings.Join(t.warning, "\n  "))
		t.warning = t.warning[:0]
	}
}

// Lines returns the kept lines, an unterminated last one included.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if l := strings.TrimSpace(printable(t.partial, stderrLineMax)); l != "" {
		out = append(out, l)
		if len(out) > stderrLines {
			out = out[1:]
		}
	}
	return out
}

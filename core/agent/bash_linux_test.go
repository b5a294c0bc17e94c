package agent

import (
	"context"
	"strings"
	"testing"
)

// A command runs in a session of its own, without pi-tui's controlling
// terminal: writing to /dev/tty cannot reach the user's screen around
// pi-tui's escaping (a retitled window, a cleared screen, a fake dialog).
func TestBashHasNoControllingTerminal(t *testing.T) {
	root := tempRoot(t)
	// Fields 1 and 6 of /proc/PID/stat are the pid and the session id; the
	// comm field (2) holds no spaces for bash.
	res := runTool(context.Background(), root, call("bash", map[string]string{"command": `cat /proc/$$/stat`}))
	f := strings.Fields(res.Text)
	if res.IsError || len(f) < 6 {
		t.Fatalf("stat: %q", res.Text)
	}
	if f[0] != f[5] {
		t.Errorf("the shell (pid %s) runs in session %s: it shares pi-tui's terminal", f[0], f[5])
	}
	res = runTool(context.Background(), root, call("bash", map[string]string{"command": `echo hi > /dev/tty && echo wrote-tty`}))
	if strings.Contains(res.Text, "wrote-tty") {
		t.Errorf("a command could write to the terminal: %q", res.Text)
	}
}

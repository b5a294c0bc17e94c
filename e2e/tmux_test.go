// Package e2e drives the real pi-tui binary in a real terminal (tmux), as
// a person would: keys in, screen out. It is part of the end-to-end suite
// (PI_TUI_E2E=1, see internal/e2egate) and is skipped, saying why,
// without it or when tmux is not installed.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/e2egate"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// term is one tmux server with one window running a command.
type term struct {
	t      *testing.T
	socket string
}

func needTmux(t *testing.T) {
	e2egate.Require(t, "builds pi-tui and drives it in a real terminal")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: the end-to-end terminal suite needs it (apt-get install tmux)")
	}
}

// built is the pi-tui binary this package's tests share: built once, on
// first need, into a temp dir TestMain removes.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// build returns the path of the shared pi-tui binary.
func build(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "pi-tui-e2e-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		bin := filepath.Join(dir, "pi-tui")
		cmd := exec.Command("go", "build", "-o", bin, "../cmd/pi-tui")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.path = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// sockets counts the tmux servers this process started.
var sockets atomic.Int64

func startTerm(t *testing.T, w, h int, env []string, argv ...string) *term {
	t.Helper()
	// The socket is this process's n-th: the tests run in parallel.
	tm := &term{t: t, socket: fmt.Sprintf("pi-tui-e2e-%d-%d", os.Getpid(), sockets.Add(1))}
	script := strings.Join(append(env, argv...), " ")
	args := []string{"-L", tm.socket, "-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), script}
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		if out, err := exec.Command("tmux", "-L", tm.socket, "send-keys", "-t", "e2e", k).CombinedOutput(); err != nil {
			tm.t.Fatalf("send-keys %q: %v %s", k, err, out)
		}
	}
}

// text types literally.
func (tm *term) text(s string) {
	tm.t.Helper()
	if out, err := exec.Command("tmux", "-L", tm.socket, "send-keys", "-l", "-t", "e2e", "--", s).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys -l: %v %s", err, out)
	}
}

func (tm *term) screen() string {
	out, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p", "-t", "e2e").Output()
	return string(out)
}

// waitLimit bounds a wait for the screen. It is a fail-safe: a wait ends
// when the screen shows what it waits for, so the bound only decides how
// long a broken test takes to fail; it is generous for a race-detector
// run on a loaded machine.
const waitLimit = 60 * time.Second

// waitFor polls the screen until every string shows, or fails after
// waitLimit with the screen.
func (tm *term) waitFor(want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		s := tm.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(s, w) {
				ok = false
			}
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waiting for %q; the screen shows:\n%s", want, s)
		}
		time.Sleep(20 * time.Millisecond) // polling a real terminal; the condition decides
	}
}

func TestTerminalEndToEnd(t *testing.T) {
	t.Parallel()
	needTmux(t)
	bin := build(t)
	home, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(home, "src", "shop")
	os.MkdirAll(filepath.Join(root, "api"), 0o755)
	os.WriteFile(filepath.Join(root, "api", "AGENTS.md"), []byte("API: errors wrap."), 0o644)
	os.WriteFile(filepath.Join(root, "api", "main.go"), []byte("package main\n"), 0o644)
	fake := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "r", Name: "read", Args: map[string]string{"path": "api/main.go"}}}}
		}
		return fakemodel.Reply{Text: "main.go declares package main."}
	})
	agent := filepath.Join(home, ".pi", "agent")
	os.MkdirAll(agent, 0o755)
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(fake.ModelsJSON("openai-completions")), 0o644)
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProvider":"fake","defaultModel":"m1"}`), 0o644)
	env := []string{"HOME=" + home, "PI_TUI_DATA_DIR=" + filepath.Join(home, "data"), "FAKE_API_KEY=k", "TERM=xterm-256color"}
	tm := startTerm(t, 100, 30, append([]string{"env"}, env...), bin)

	tm.waitFor("No projects yet")
	// Add a project through the dialog, with folder completion.
	tm.keys("n")
	tm.waitFor("Add a project")
	tm.text("~/src/sh")
	tm.keys("Tab")
	tm.waitFor("~/src/shop/")
	tm.keys("Enter", "Enter", "y", "Enter")
	tm.waitFor("added shop", "› shop") // the list reloads after the notice

	// Edit AGENTS.md from the row menu.
	tm.keys("Enter", "a")
	tm.waitFor("new file from the starter template")
	tm.keys("C-End", "Enter")
	tm.text("- Keep handlers small.")
	tm.keys("C-s")
	tm.waitFor("saved ~/src/shop/AGENTS.md")
	tm.keys("Escape")
	if data, _ := os.ReadFile(filepath.Join(root, "AGENTS.md")); !strings.Contains(string(data), "- Keep handlers small.") {
		t.Fatalf("AGENTS.md on disk:\n%s", data)
	}

	// Edit memory.
	tm.waitFor("AGENTS.md ·")
	tm.keys("Enter", "m")
	tm.waitFor("No memory yet")
	tm.keys("a", "Tab")
	tm.text("Deploys go out on Fridays.")
	// Escape then another key at once reads as alt+key on a terminal:
	// wait for the list before saving.
	tm.keys("Escape")
	tm.waitFor("a add · enter edit")
	tm.keys("C-s")
	tm.waitFor("saved memory of shop")
	tm.keys("Escape")
	out, err := exec.Command("env", append(env, bin, "memory", "show", "shop")...).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "Deploys go out on Fridays." {
		t.Fatalf("memory show: %v %q", err, out)
	}
	projectsScreen := tm.waitFor("memory 1")

	// A scripted session: the read in api/ shows its preflight and the
	// delivered instructions.
	tm.keys("Enter", "o")
	tm.waitFor("No sessions yet")
	tm.keys("n")
	tm.waitFor("Type a message")
	tm.text("what is in api/main.go?")
	tm.keys("Enter")
	sessionScreen := tm.waitFor("main.go declares package main.", "read api/main.go", "preflight", "+api/AGENTS.md")
	tm.keys("C-c")

	writeCapture(t, "projects.txt", projectsScreen)
	writeCapture(t, "session.txt", sessionScreen)
	if !strings.Contains(fake.Requests()[0].System, "Deploys go out on Fridays.") {
		t.Error("the memory did not reach the model")
	}
}

// writeCapture keeps a plain-text screen for the README when
// PI_TUI_E2E_CAPTURES names a folder.
func writeCapture(t *testing.T, name, screen string) {
	dir := os.Getenv("PI_TUI_E2E_CAPTURES")
	if dir == "" {
		return
	}
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(screen), 0o644); err != nil {
		t.Error(err)
	}
}

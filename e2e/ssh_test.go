package e2e

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestSSHEndToEnd: the same journey over pi-tui serve with the OpenSSH
// client in tmux.
func TestSSHEndToEnd(t *testing.T) {
	t.Parallel()
	needTmux(t)
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("the OpenSSH client (ssh) is not installed: skipping the SSH end-to-end test")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: skipping the SSH end-to-end test")
	}
	bin := build(t)
	home, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(home, "src", "shop")
	os.MkdirAll(filepath.Join(root, "api"), 0o755)
	os.WriteFile(filepath.Join(root, "api", "main.go"), []byte("package main\n"), 0o644)
	fake := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "Hello over SSH."}
	})
	agent := filepath.Join(home, ".pi", "agent")
	os.MkdirAll(agent, 0o755)
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(fake.ModelsJSON("openai-completions")), 0o644)
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProvider":"fake","defaultModel":"m1"}`), 0o644)

	key := filepath.Join(home, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	authorized := filepath.Join(home, "authorized_keys")
	os.WriteFile(authorized, pub, 0o600)

	addr := freePort(t)
	env := []string{"HOME=" + home, "PI_TUI_DATA_DIR=" + filepath.Join(home, "data"), "FAKE_API_KEY=k"}
	ctx, cancel := context.WithCancel(context.Background())
	srv := exec.CommandContext(ctx, bin, "serve", "--listen", addr, "--authorized-keys", authorized)
	srv.Env = env
	out, _ := srv.StdoutPipe()
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); srv.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on") {
		t.Fatalf("serve did not start: %q %v", line, err)
	}

	_, port, _ := net.SplitHostPort(addr)
	tm := startTerm(t, 100, 30, []string{"env", "TERM=xterm-256color"}, "ssh", "-t", "-F", "/dev/null", "-p", port, "-i", key,
		"-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
		"tester@127.0.0.1")
	tm.waitFor("No projects yet")
	tm.keys("n")
	tm.waitFor("Add a project")
	tm.text(root)
	tm.keys("Enter", "Enter", "y", "Enter")
	tm.waitFor("added shop", "› shop") // the list reloads after the notice
	tm.keys("Enter", "a")
	tm.waitFor("new file from the starter template")
	tm.keys("C-End", "Enter")
	tm.text("- Over SSH too.")
	tm.keys("C-s")
	tm.waitFor("saved ")
	tm.keys("Escape")
	if data, _ := os.ReadFile(filepath.Join(root, "AGENTS.md")); !strings.Contains(string(data), "- Over SSH too.") {
		t.Fatalf("AGENTS.md on disk:\n%s", data)
	}
	tm.waitFor("AGENTS.md ·")
	tm.keys("Enter", "m")
	tm.waitFor("No memory yet")
	tm.keys("a", "Tab")
	tm.text("Remote note.")
	// Escape then another key at once reads as alt+key on a terminal:
	// wait for the list before saving.
	tm.keys("Escape")
	tm.waitFor("a add · enter edit")
	tm.keys("C-s")
	tm.waitFor("saved memory of shop")
	tm.keys("Escape")
	tm.waitFor("memory 1")
	tm.keys("Enter", "o")
	tm.waitFor("No sessions yet")
	tm.keys("n")
	tm.waitFor("Type a message")
	tm.text("hello")
	tm.keys("Enter")
	tm.waitFor("Hello over SSH.")
	tm.keys("C-c")

	show := exec.Command(bin, "memory", "show", "shop")
	show.Env = env
	if got, err := show.CombinedOutput(); err != nil || strings.TrimSpace(string(got)) != "Remote note." {
		t.Errorf("memory show: %v %q", err, got)
	}
	logData, _ := os.ReadFile(filepath.Join(home, "data", "ssh.log"))
	if !strings.Contains(string(logData), "tester") || !strings.Contains(string(logData), "SHA256:") || strings.Contains(string(logData), strings.Fields(string(pub))[1]) {
		t.Errorf("connection log:\n%s", logData)
	}
}

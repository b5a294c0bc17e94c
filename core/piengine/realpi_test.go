package piengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/realpi"
)

// realPi returns the executable that runs a real pi 1.x ($PI_TUI_PI,
// which .ci/run points at the pi 1.6.0 it installs, or pi on PATH), or
// skips with the reason.
func realPi(t *testing.T) string {
	t.Helper()
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	return argv[0]
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

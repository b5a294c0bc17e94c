package agent

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/toolpolicy/guardtest"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestBashDoesNotGetProviderKeys: bash runs without pi-tui's own provider
// keys (built-in, well-known and those models.json names) unless the user
// opts in.
func TestBashDoesNotGetProviderKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET1")
	t.Setenv("OPENAI_API_KEY", "sk-SECRET2")
	t.Setenv("GEMINI_API_KEY", "SECRET3")
	t.Setenv("MY_GATEWAY_TOKEN", "SECRET4")
	t.Setenv("PI_TUI_KEEP_ME", "visible")
	agentDir := t.TempDir()
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(`{"providers":{"gw":{"baseUrl":"http://x","api":"openai-completions","apiKey":"MY_GATEWAY_TOKEN","models":[{"id":"m"}]}}}`), 0o644)
	run := func() string {
		h := newHarness(t, func(n int, req fakemodel.Request) fakemodel.Reply {
			if n == 0 {
				return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "b", Name: "bash", Args: map[string]string{"command": "env"}}}}
			}
			return fakemodel.Reply{Text: req.LastToolResult}
		}, func(c *Config) { c.AgentDir = agentDir })
		res, err := h.ag.Prompt(context.Background(), "env")
		if err != nil {
			t.Fatal(err)
		}
		return res.Text
	}
	out := run()
	for _, s := range []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4"} {
		if strings.Contains(out, s) {
			t.Errorf("bash saw a provider key (%s)", s)
		}
	}
	if !strings.Contains(out, "PI_TUI_KEEP_ME=visible") || !strings.Contains(out, "PATH=") {
		t.Errorf("bash lost the rest of the environment:\n%s", out)
	}
	t.Setenv("PI_TUI_BASH_KEEP_KEYS", "1")
	if out := run(); !strings.Contains(out, "SECRET1") || !strings.Contains(out, "SECRET4") {
		t.Errorf("with PI_TUI_BASH_KEEP_KEYS=1 the keys are still removed:\n%s", out)
	}
}

// TestBashBackgroundJob: a command that leaves a job in the background
// returns its output when the shell exits, says that the job was stopped,
// and the job is gone.
func TestBashBackgroundJob(t *testing.T) {
	root := tempRoot(t)
	held := filepath.Join(t.TempDir(), "held")
	ready := filepath.Join(t.TempDir(), "ready")
	mkfifo(t, held)
	mkfifo(t, ready)
	gone := make(chan struct{})
	go func() {
		// Opens once the job holds the write end; EOF once every process
		// holding it has exited.
		if f, err := os.Open(held); err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
		close(gone)
	}()
	// The job holds the output pipe (and the FIFO); the shell waits until
	// the job is running, then exits.
	command := "echo before; (exec 3>" + held + "; echo up >" + ready + "; exec sleep 30) & read _ <" + ready + "; echo after"
	res := guardtest.Returns(t, "bash with a background job", func() ToolResult {
		return runTool(context.Background(), root, call("bash", map[string]string{"command": command}))
	})
	if res.IsError || !strings.Contains(res.Text, "before") || !strings.Contains(res.Text, "after") || !strings.Contains(res.Text, "background") {
		t.Errorf("bash = %+v", res)
	}
	guardtest.Returns(t, "the background job's end", func() struct{} { <-gone; return struct{}{} })
}

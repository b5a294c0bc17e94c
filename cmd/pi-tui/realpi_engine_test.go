package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// benchRig is a project and a fake model for the real-pi benchmarks.
func benchRig(b *testing.B) (*cli, string) {
	pi := os.Getenv("PI_TUI_PI")
	if pi == "" {
		b.Skip("PI_TUI_PI does not point at pi 1.6")
	}
	c := &cli{env: map[string]string{}}
	home := b.TempDir()
	c.env["HOME"], c.env["PI_TUI_DATA_DIR"] = home, filepath.Join(home, "data")
	fake := fakemodel.New(b, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Finished."} })
	agentDir := filepath.Join(home, ".pi", "agent")
	os.MkdirAll(agentDir, 0o755)
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(fake.ModelsJSON("openai-completions")), 0o644)
	os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"defaultProvider":"fake","defaultModel":"m1"}`), 0o644)
	root := filepath.Join(home, "mono")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Root rule."), 0o644)
	c.env["FAKE_API_KEY"], c.env["PI_TUI_PI"] = "test-key", pi
	b.Setenv("FAKE_API_KEY", "test-key")
	b.Setenv("HOME", home)
	return c, root
}

// One whole headless prompt through pi-tui's pi engine (pi launched, the
// bridge, one model call, pi ended), in process.
func BenchmarkRealPiEnginePrompt(b *testing.B) {
	c, root := benchRig(b)
	var errb strings.Builder
	if code := run(b.Context(), []string{"projects", "add", root, "--trust", "--name", "mono"}, strings.NewReader(""), &strings.Builder{}, &errb, func(k string) string { return c.env[k] }); code != 0 {
		b.Fatal(errb.String())
	}
	for b.Loop() {
		var out, errs strings.Builder
		if code := run(b.Context(), []string{"prompt", "--project", "mono", "--engine", "pi", "hello"}, strings.NewReader(""), &out, &errs, func(k string) string { return c.env[k] }); code != 0 {
			b.Fatal(errs.String())
		}
	}
}

// The same prompt with pi alone (pi -p), the baseline of the goal ≤ 1.3×.
func BenchmarkRealPiPrint(b *testing.B) {
	c, root := benchRig(b)
	for b.Loop() {
		cmd := exec.Command(c.env["PI_TUI_PI"], "-p", "--no-context-files", "hello")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+filepath.Join(c.env["HOME"], ".pi", "agent"), "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

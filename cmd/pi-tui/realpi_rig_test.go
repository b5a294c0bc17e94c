package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// The rig of the tests that run pi-tui with the real pi 1.x as its engine
// (PI_TUI_PI; .ci/run installs pi 1.6.0 and sets it), against a fake
// OpenAI-compatible model server that pi reaches through the agent dir's
// models.json, as a user's pi reaches their provider.

// foundPi16 is the real pi these tests share: its version is asked once.
var foundPi16 struct {
	once sync.Once
	path string
	skip string
}

// realPiCLI returns a CLI whose pi engine is the real pi, or skips with
// the reason. pi inherits the test process's environment, so its HOME and
// the fake model's key are set there (which keeps these tests serial).
func realPiCLI(t *testing.T) *cli {
	t.Helper()
	foundPi16.once.Do(func() {
		argv, skip := realpi.Command16()
		if argv != nil {
			foundPi16.path = argv[0]
		}
		foundPi16.skip = skip
	})
	if foundPi16.path == "" {
		t.Skip(foundPi16.skip)
	}
	c := newCLI(t)
	c.env["PI_TUI_PI"] = foundPi16.path
	t.Setenv("FAKE_API_KEY", "test-key")
	t.Setenv("HOME", c.env["HOME"])
	return c
}

// realPiProject is modelRig's project (root AGENTS.md, packages/api with
// its own AGENTS.md and handler.go), trusted or not, with a fake model
// playing script as pi's default model.
func realPiProject(t *testing.T, c *cli, trusted bool, script fakemodel.Script) (*fakemodel.Server, string) {
	t.Helper()
	fake := fakemodel.New(t, script)
	agentDir := filepath.Join(c.env["HOME"], ".pi", "agent")
	writeFile(t, filepath.Join(agentDir, "models.json"), fake.ModelsJSON("openai-completions"))
	writeFile(t, filepath.Join(agentDir, "settings.json"), `{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"off"}`)
	c.env["FAKE_API_KEY"] = "test-key"
	root := mkdir(t, c.env["HOME"], "mono")
	writeFile(t, filepath.Join(root, "AGENTS.md"), "Root rule: keep functions short.")
	writeFile(t, filepath.Join(root, "packages", "api", "AGENTS.md"), "API rule: wrap errors.")
	writeFile(t, filepath.Join(root, "packages", "api", "handler.go"), "package api\n\nfunc Handle() {}\n")
	args := []string{"projects", "add", root, "--name", "mono"}
	if trusted {
		args = append(args, "--trust")
	}
	c.ok(args...)
	return fake, root
}

// callsThenAnswer: a prompt "TOOL ARG…" makes the model call TOOL once
// per ARG (read and hello take a path, write writes "noted" to it;
// "bash COMMAND…" runs the rest of the line as one command); after the
// results it answers "done".
func callsThenAnswer(n int, req fakemodel.Request) fakemodel.Reply {
	f := strings.Fields(req.LastUser)
	if req.LastToolResult != "" || len(f) == 0 {
		return fakemodel.Reply{Text: "done"}
	}
	if f[0] == "bash" {
		command := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(req.LastUser), "bash"))
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("c%d_0", n), Name: "bash", Args: map[string]string{"command": command}}}}
	}
	var calls []fakemodel.Call
	args := f[1:]
	if f[0] == "hello" {
		args = []string{""}
	}
	for i, a := range args {
		var in any
		switch f[0] {
		case "read":
			in = map[string]string{"path": a}
		case "write":
			in = map[string]string{"path": a, "content": "noted"}
		case "hello":
			in = map[string]string{}
		default:
			return fakemodel.Reply{Text: "done"}
		}
		calls = append(calls, fakemodel.Call{ID: fmt.Sprintf("c%d_%d", n, i), Name: f[0], Args: in})
	}
	return fakemodel.Reply{Calls: calls}
}

// promptPi runs one headless `prompt --engine pi --json` and returns its
// exit status, events and stderr.
func promptPi(t *testing.T, c *cli, extra ...string) (int, []map[string]any, string) {
	t.Helper()
	args := append([]string{"prompt", "--project", "mono", "--engine", "pi", "--json"}, extra...)
	code, out, errs := c.run("", args...)
	return code, jsonLines(t, out), errs
}

// launchedPi checks that a run launched the real pi (one launch, engine
// pi, a 1.x version).
func launchedPi(t *testing.T, evs []map[string]any) {
	t.Helper()
	l := typed(evs, "runtime_launched")
	if len(l) != 1 || l[0]["engine"] != "pi" || !strings.HasPrefix(fmt.Sprint(l[0]["engineVersion"]), "1.") {
		t.Errorf("runtime_launched = %v, want one on pi 1.x", l)
	}
}

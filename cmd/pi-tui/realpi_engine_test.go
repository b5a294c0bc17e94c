package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// The real pi 1.6 (PI_TUI_PI; .ci/run installs it) as the engine, against
// a fake OpenAI-compatible server: pi's own system prompt carries pi-tui's
// root chain once and the memory frame, and a write is denied headless
// (exit 3).
func TestRealPiEngineHeadless(t *testing.T) {
	pi := os.Getenv("PI_TUI_PI")
	if pi == "" {
		t.Skip("PI_TUI_PI does not point at pi 1.6 (.ci/run installs it; locally: PI_TUI_PI=/work/cache/ci/pi-1.6.0/pi)")
	}
	c := newCLI(t)
	fake, root := modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" && strings.Contains(req.LastUser, "write") {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w1", Name: "write", Args: map[string]string{"path": "notes.txt", "content": "noted"}}}}
		}
		return fakemodel.Reply{Text: "Finished."}
	})
	// pi reads the key and its home from its own environment.
	t.Setenv("FAKE_API_KEY", "test-key")
	t.Setenv("HOME", c.env["HOME"])
	c.env["PI_TUI_PI"] = pi
	memFile := filepath.Join(t.TempDir(), "mem.txt")
	writeFile(t, memFile, "The staging server is called hermes.")
	c.ok("memory", "set", "mono", "--file", memFile)

	code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", "pi", "--json", "please write the notes")
	if code != exitDenied {
		t.Fatalf("exit %d, want 3: %s\n%s", code, errs, out)
	}
	evs := jsonLines(t, out)
	if l := typed(evs, "runtime_launched"); len(l) != 1 || l[0]["engine"] != "pi" || !strings.HasPrefix(l[0]["engineVersion"].(string), "1.") {
		t.Errorf("launch = %v", l)
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); err == nil {
		t.Error("the denied write wrote")
	}
	reqs := fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("pi never called the model")
	}
	sys := reqs[0].System
	if n := strings.Count(sys, "Root rule: keep functions short."); n != 1 {
		t.Errorf("the root chain is in pi's system prompt %d times:\n%s", n, sys)
	}
	if !strings.Contains(sys, "<project-memory") || !strings.Contains(sys, "hermes") {
		t.Errorf("no memory frame in pi's system prompt:\n%s", sys)
	}
	if strings.Contains(sys, "API rule") {
		t.Errorf("a nested AGENTS.md reached the system prompt:\n%s", sys)
	}
}

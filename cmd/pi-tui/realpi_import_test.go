package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// TestRealPiContinuesAnImportedSession imports a Claude Code session, then
// continues it in the real pi (`pi --session FILE -p`) and in pi-tui on
// either engine: each request carries the imported turns, the question,
// the tool call's output and the answers.
func TestRealPiContinuesAnImportedSession(t *testing.T) {
	c := realPiCLI(t)
	fake, root := realPiProject(t, c, true, func(n int, req fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "CONTINUED"} })
	claudeSession(t, c.env["HOME"], root, "5a5a5a5a-0000-4000-8000-000000000001")
	c.ok("sessions", "import", "--from", "claude")
	var list []struct{ ID, Path string }
	if err := json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions list after the import: %v %+v", err, list)
	}

	imported := []string{"IMPORTED-QUESTION", "IMPORTED-ANSWER", "cat parser.go", "IMPORTED-TOOL-OUTPUT", "IMPORTED-FINAL"}
	check := func(who, ask string) {
		t.Helper()
		reqs := fake.Requests()
		if len(reqs) == 0 {
			t.Fatalf("%s sent no request", who)
		}
		raw := reqs[len(reqs)-1].Raw
		for _, w := range append(imported, ask) {
			if !strings.Contains(raw, w) {
				t.Errorf("%s's request lacks %q:\n%s", who, w, raw)
			}
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, foundPi16.path, "--session", list[0].Path, "-p", "PI-NEXT-QUESTION")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+c.env["HOME"], "FAKE_API_KEY=test-key")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "CONTINUED") {
		t.Fatalf("pi --session %s -p: %v\n%s", list[0].Path, err, out)
	}
	check("pi", "PI-NEXT-QUESTION")

	for _, engine := range []string{"pi", "builtin"} {
		ask := "PI-TUI-" + strings.ToUpper(engine) + "-QUESTION"
		code, got, errs := c.run("", "prompt", "--project", "mono", "--session", list[0].ID, "--engine", engine, ask)
		if code != 0 || !strings.Contains(got, "CONTINUED") {
			t.Fatalf("prompt --engine %s on the imported session: exit %d %q %s", engine, code, got, errs)
		}
		check("pi-tui on the "+engine+" engine", ask)
	}
}

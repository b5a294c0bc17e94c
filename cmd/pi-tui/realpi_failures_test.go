package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// These need no real pi: they are about a pi that cannot run.

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pi")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// With --engine pi and a pi that cannot run, a prompt fails with one
// clear stderr line and exit 1, whichever way pi fails: PI_TUI_PI names
// no file; pi dies at once, even for --version; pi answers --version and
// dies when launched. The model is never called.
func TestPiThatCannotRunIsOneClearError(t *testing.T) {
	cases := []struct {
		name string
		pi   func(t *testing.T) string
		want []string
	}{
		{"missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "no-such-pi") }, []string{"PI_TUI_PI=", "no-such-pi: no such file", "--engine builtin"}},
		{"dies at once", func(t *testing.T) string {
			return script(t, "echo 'pi: cannot find module cli.js' >&2\nexit 1\n")
		}, []string{"cannot run", "--version failed", "cannot find module cli.js", "--engine builtin"}},
		{"dies at launch", func(t *testing.T) string {
			return script(t, "if [ \"$1\" = --version ]; then echo 1.6.0; exit 0; fi\necho 'pi: Error: cannot load the agent dir' >&2\nexit 1\n")
		}, []string{"pi exited (status 1)", "cannot load the agent dir"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			fake, _ := modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "unused"} })
			c.env["PI_TUI_PI"] = tc.pi(t)
			code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", "pi", "hello")
			if code != 1 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "pi-tui: ") {
				t.Errorf("exit %d, stderr %q (stdout %q); want 1 and one line", code, errs, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not say %q", errs, w)
				}
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("the model was called %d times", n)
			}
		})
	}
}

// With --engine auto and PI_TUI_PI naming nothing usable (no file, a pi
// that dies at once), the prompt runs on the built-in engine, quietly.
func TestAutoFallsBackToBuiltinWithoutAUsablePi(t *testing.T) {
	for name, pi := range map[string]func(t *testing.T) string{
		"missing":      func(t *testing.T) string { return filepath.Join(t.TempDir(), "no-such-pi") },
		"dies at once": func(t *testing.T) string { return script(t, "echo broken >&2\nexit 1\n") },
	} {
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "from the built-in engine"} })
			c.env["PI_TUI_PI"] = pi(t)
			code, out, errs := c.run("", "prompt", "--project", "mono", "--engine", "auto", "--json", "hello")
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs) // --json says it as an event
			}
			evs := jsonLines(t, out)
			if l := typed(evs, "runtime_launched"); len(l) != 1 || l[0]["engine"] != "builtin" {
				t.Errorf("runtime_launched = %v, want one on builtin", l)
			}
			if end := typed(evs, "agent_end"); len(end) != 1 || end[0]["text"] != "from the built-in engine" {
				t.Errorf("agent_end = %v", end)
			}
			// PI_TUI_PI names a pi that cannot run: the fallback says so.
			if n := typed(evs, "notice"); len(n) != 1 || !strings.Contains(fmt.Sprint(n[0]["text"]), "PI_TUI_PI names no pi that can run") {
				t.Errorf("notice = %v", n)
			}
			code, out, errs = c.run("", "prompt", "--project", "mono", "--engine", "auto", "hello")
			if code != 0 || !strings.Contains(out, "from the built-in engine") || !strings.HasPrefix(errs, "pi-tui: warning: PI_TUI_PI names no pi that can run") || strings.Count(errs, "\n") != 1 {
				t.Errorf("plain: exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

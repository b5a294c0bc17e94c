package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/store/storetest"
)

// cli runs pi-tui in-process with its own environment.
type cli struct {
	t   *testing.T
	env map[string]string
}

func newCLI(t *testing.T) *cli {
	home := t.TempDir()
	// A migrated database, copied: the first command would otherwise run
	// every migration (the scripts start from a home without one).
	storetest.Seed(t, filepath.Join(home, "data"))
	return &cli{t: t, env: map[string]string{
		"HOME":            home,
		"PI_TUI_DATA_DIR": filepath.Join(home, "data"),
	}}
}

func (c *cli) run(stdin string, args ...string) (code int, stdout, stderr string) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb, func(k string) string { return c.env[k] })
	return code, out.String(), errb.String()
}

func (c *cli) ok(args ...string) string {
	c.t.Helper()
	code, out, errs := c.run("", args...)
	if code != 0 {
		c.t.Fatalf("pi-tui %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return out
}

func (c *cli) fails(wantCode int, wantErr string, args ...string) {
	c.t.Helper()
	code, _, errs := c.run("", args...)
	if code != wantCode {
		c.t.Errorf("pi-tui %s: exit %d, want %d (%s)", strings.Join(args, " "), code, wantCode, errs)
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, wantErr) {
		c.t.Errorf("pi-tui %s: stderr %q, want one line containing %q", strings.Join(args, " "), errs, wantErr)
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(parts...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// A memory file over the 32 KiB cap is refused and changes nothing
// (testdata/script/memory.txtar has the rest of memory set's contract;
// a file this size is made here rather than kept in the script).
func TestMemorySetRefusesOversizeInput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("projects", "add", mkdir(t, c.env["HOME"], "proj"))
	c.run("kept\n", "memory", "set", "proj", "--file", "-")
	big := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 32769)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.fails(1, "too large", "memory", "set", "proj", "--file", big)
	if out := c.ok("memory", "show", "proj"); out != "kept\n" {
		t.Errorf("a refused set changed memory: %q", out)
	}
}

// serve gets the longer grace after a signal, wherever the global flags
// stand.
func TestGraceForServe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"serve"}, serveGrace},
		{[]string{"--data-dir", "/d", "serve", "--listen", "x"}, serveGrace},
		{[]string{"--agent-dir=/a", "serve"}, serveGrace},
		{[]string{"prompt", "serve"}, shutdownGrace},
		{[]string{"--data-dir", "serve"}, shutdownGrace},
	} {
		if got := graceFor(c.args); got != c.want {
			t.Errorf("graceFor(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

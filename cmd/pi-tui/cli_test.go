package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// cli runs pi-tui in-process with its own environment.
type cli struct {
	t   *testing.T
	env map[string]string
}

func newCLI(t *testing.T) *cli {
	home := t.TempDir()
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

func TestBareCommandPrintsHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{nil, {"help"}, {"--help"}, {"-h"}} {
		if out := c.ok(args...); !strings.Contains(out, "pi-tui projects list") || !strings.Contains(out, "pi-tui memory set") {
			t.Errorf("help for %v lacks the commands:\n%s", args, out)
		}
	}
	c.fails(2, `unknown command "frobnicate"`, "frobnicate")
	c.fails(2, "projects add needs exactly one PATH", "projects", "add")
	c.fails(2, "unknown flag --bogus", "projects", "list", "--bogus")
	c.fails(2, "--data-dir", "projects", "list", "--data-dir=")
}

func TestProjectsCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	root := mkdir(t, c.env["HOME"], "src", "api")
	other := mkdir(t, c.env["HOME"], "src", "web")

	out := c.ok("projects", "add", root, "--trust")
	if !strings.Contains(out, "added api") || !strings.Contains(out, "~/src/api") {
		t.Errorf("add said %q", out)
	}
	if out := c.ok("projects", "add", root+"/../api"); !strings.Contains(out, "already registered") {
		t.Errorf("re-add said %q", out)
	}
	c.ok("projects", "add", "--name", "Web UI", other)
	c.ok("projects", "pin", "Web UI")
	c.ok("projects", "archive", "api")
	c.ok("projects", "rename", other, "web")

	var list []map[string]any
	if err := json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0]["name"] != "web" || list[0]["pinned"] != true {
		t.Fatalf("list without --all = %v", list)
	}
	var keys []string
	for k := range list[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := "archived,duplicateName,folders,group,id,lastOpenedAt,memoryBytes,memoryEntries,missing,name,pinned,root,sessions,trusted"
	if strings.Join(keys, ",") != want {
		t.Errorf("JSON keys = %s\nwant %s", strings.Join(keys, ","), want)
	}
	if err := json.Unmarshal([]byte(c.ok("projects", "list", "--all", "--json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("--all: %v %v", list, err)
	}
	if list[1]["archived"] != true || list[1]["trusted"] != true || list[1]["root"] != root {
		t.Errorf("archived project = %v", list[1])
	}
	c.ok("projects", "restore", root)
	if out := c.ok("projects", "list"); !strings.Contains(out, "api") || !strings.Contains(out, "pinned") {
		t.Errorf("human list:\n%s", out)
	}
	c.fails(1, "no project matches", "projects", "trust", "nope")
	if out := c.ok("projects", "trust", "api"); !strings.Contains(out, "was already trusted") {
		t.Errorf("trusting twice said %q", out)
	}

	// Names never shadow ids or paths.
	c.fails(1, "path separator", "projects", "rename", "web", root)
	c.fails(1, "looks like a project id", "projects", "rename", "web", "p0123abcd")
	// A known folder added again with flags gets them applied.
	if out := c.ok("projects", "add", other, "--trust", "--name", "frontend"); !strings.Contains(out, "renamed to frontend, now trusted") {
		t.Errorf("re-add with flags said %q", out)
	}
	// A name another project has is refused, naming that project.
	c.fails(1, "is taken by project", "projects", "rename", "frontend", "API")
	c.ok("projects", "rename", other, "web")
	out = c.ok("projects", "remove", "api")
	if !strings.Contains(out, "was not touched") {
		t.Errorf("remove said %q", out)
	}
	if _, err := os.Stat(root); err != nil {
		t.Error("remove deleted the folder")
	}
}

func TestMemoryCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	root := mkdir(t, c.env["HOME"], "proj")
	c.ok("projects", "add", root)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}

	c.ok("memory", "set", "proj", "--file", write("v1.json",
		`{"format":"entries-v1","entries":[{"id":"a","title":"Style","content":"gofmt"},{"id":"b","title":"","content":"tabs"}]}`))
	if out := c.ok("memory", "show", "proj"); out != "## Style\n\ngofmt\n\ntabs\n" {
		t.Errorf("show = %q", out)
	}
	var v struct {
		Format  string
		Entries []map[string]string
		Content string
	}
	if err := json.Unmarshal([]byte(c.ok("memory", "show", "--json", root)), &v); err != nil {
		t.Fatal(err)
	}
	if v.Format != "entries-v1" || len(v.Entries) != 2 || v.Entries[0]["id"] != "a" || v.Content != "## Style\n\ngofmt\n\ntabs" {
		t.Errorf("show --json = %+v", v)
	}

	c.ok("memory", "set", "proj", "--file", write("arr.json", `[{"title":"Only","content":"one"}]`))
	if out := c.ok("memory", "show", "proj"); out != "## Only\n\none\n" {
		t.Errorf("after array: %q", out)
	}
	code, _, errs := c.run("plain words\n", "memory", "set", "proj", "--file", "-")
	if code != 0 {
		t.Fatalf("stdin: %d %s", code, errs)
	}
	if out := c.ok("memory", "show", "proj"); out != "plain words\n" {
		t.Errorf("after text: %q", out)
	}

	// Bad input: JSON-looking garbage, oversize, a directory. Nothing changes.
	c.fails(1, "invalid memory JSON", "memory", "set", "proj", "--file", write("bad.json", `{"entries": [`))
	// echo '{"bad json' > f: the end of the text is at the end of line 1.
	c.fails(1, "ends too early, at line 1, column 11", "memory", "set", "proj", "--file", write("cut.json", "{\"bad json\n"))
	c.fails(1, "too large", "memory", "set", "proj", "--file", write("big.txt", strings.Repeat("x", 32769)))
	c.fails(1, "is a directory", "memory", "set", "proj", "--file", dir)
	c.fails(1, "no such file", "memory", "set", "proj", "--file", filepath.Join(dir, "absent"))
	c.fails(2, "needs --file", "memory", "set", "proj")
	// An unknown project is said before anything about the input.
	code, _, errs = c.run("", "memory", "set", "nosuch", "--file", "/dev/null")
	if code == 0 || !strings.Contains(errs, "nosuch") || strings.Contains(errs, "device") {
		t.Errorf("memory set nosuch --file /dev/null: exit %d, %q; want the unknown project named, not the device", code, errs)
	}
	c.fails(1, "input is empty", "memory", "set", "proj", "--file", write("empty.txt", "\n \n"))
	c.fails(1, "unknown field", "memory", "set", "proj", "--file", write("shape.json", `{"foo": 1}`))
	if out := c.ok("memory", "show", "proj"); out != "plain words\n" {
		t.Errorf("a refused set changed memory: %q", out)
	}
	var list []map[string]any
	json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list)
	if list[0]["memoryEntries"] != 1.0 || list[0]["memoryBytes"] != float64(len("plain words")) {
		t.Errorf("listing memory = %v", list[0])
	}
	// [] clears on purpose.
	c.ok("memory", "set", "proj", "--file", write("clear.json", "[]"))
	if code, out, errs := c.run("", "memory", "show", "proj"); code != 0 || out != "" || !strings.Contains(errs, "has no memory") {
		t.Errorf("after clearing: %d %q %q", code, out, errs)
	}
}

func TestPlacesFromFlagsAndEnvironment(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	root := mkdir(t, c.env["HOME"], "p")
	viaFlag := filepath.Join(t.TempDir(), "flagdata")
	c.ok("projects", "add", root, "--data-dir", viaFlag)
	if _, err := os.Stat(filepath.Join(viaFlag, "pi-tui.db")); err != nil {
		t.Errorf("--data-dir not used: %v", err)
	}
	delete(c.env, "PI_TUI_DATA_DIR")
	c.env["XDG_DATA_HOME"] = filepath.Join(c.env["HOME"], "xdg")
	c.ok("--data-dir", viaFlag, "projects", "list")
	c.ok("projects", "list")
	if _, err := os.Stat(filepath.Join(c.env["HOME"], "xdg", "pi-tui", "pi-tui.db")); err != nil {
		t.Errorf("$XDG_DATA_HOME/pi-tui not used: %v", err)
	}
	delete(c.env, "XDG_DATA_HOME")
	c.ok("projects", "list")
	if _, err := os.Stat(filepath.Join(c.env["HOME"], ".local", "share", "pi-tui", "pi-tui.db")); err != nil {
		t.Errorf("~/.local/share/pi-tui not used: %v", err)
	}
}

func TestCorruptDatabaseIsOneClearLine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	data := c.env["PI_TUI_DATA_DIR"]
	os.MkdirAll(data, 0o700)
	db := filepath.Join(data, "pi-tui.db")
	os.WriteFile(db, bytes.Repeat([]byte{0xde, 0xad}, 4096), 0o600)
	c.fails(1, db, "projects", "list")
}

// TestBinaryExitCodes runs the real binary once, to see main's wiring.
func TestBinaryExitCodes(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "projects", "add", filepath.Join(home, "absent"))
	cmd.Env = []string{"HOME=" + home}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "does not exist") {
		t.Errorf("exit = %v, output %q", err, out)
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

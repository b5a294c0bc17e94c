package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// builtFakePi is the fake pi these tests share: built once, on first
// need, removed by TestMain.
var builtFakePi struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func buildFakePi(t *testing.T) string {
	t.Helper()
	builtFakePi.once.Do(func() {
		builtFakePi.dir, builtFakePi.err = os.MkdirTemp("", "pi-tui-fakepi-")
		if builtFakePi.err == nil {
			builtFakePi.path, builtFakePi.err = fakepi.Build(builtFakePi.dir)
		}
	})
	if builtFakePi.err != nil {
		t.Fatal(builtFakePi.err)
	}
	return builtFakePi.path
}

// fakePi writes a wrapper that runs the fake pi with script and returns
// its path, for PI_TUI_PI.
func fakePi(t *testing.T, script fakepi.Script) string {
	t.Helper()
	bin := buildFakePi(t)
	dir := t.TempDir()
	b, _ := json.Marshal(script)
	writeFile(t, filepath.Join(dir, "script.json"), string(b))
	wrapper := filepath.Join(dir, "pi")
	writeFile(t, wrapper, "#!/bin/sh\nFAKEPI_SCRIPT='"+filepath.Join(dir, "script.json")+"'\nexport FAKEPI_SCRIPT\nexec '"+bin+"' \"$@\"\n")
	os.Chmod(wrapper, 0o755)
	return wrapper
}

// jsonLines decodes prompt --json's output.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		evs = append(evs, m)
	}
	return evs
}

func wireTypes(evs []map[string]any) map[string]bool {
	out := map[string]bool{}
	for _, e := range evs {
		out[e["type"].(string)] = true
	}
	return out
}

// --engine takes auto, pi or builtin (else exit 2 with the usage line);
// pi chosen without a usable pi is one clear error and exit 1.
func TestEngineFlagAndUnusablePi(t *testing.T) {
	c := newCLI(t)
	modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	c.fails(2, `prompt --engine: unknown engine "node" (auto, pi, builtin)`, "prompt", "--project", "mono", "--engine", "node", "hello")
	c.fails(2, `rpc --engine: unknown engine "x"`, "rpc", "--project", "mono", "--engine", "x")
	c.fails(1, "the pi engine is chosen (--engine) but cannot run: pi not found", "prompt", "--project", "mono", "--engine", "pi", "hello")
	old := filepath.Join(t.TempDir(), "pi")
	writeFile(t, old, "#!/bin/sh\necho 1.4.9\n")
	os.Chmod(old, 0o755)
	c.env["PI_TUI_PI"] = old
	c.fails(1, "pi 1.4.9 at "+old+" speaks an RPC pi-tui does not support", "prompt", "--project", "mono", "--engine", "pi", "hello")
	// auto falls back to the built-in engine, quietly.
	code, out, errs := c.run("", "prompt", "--project", "mono", "--json", "hello")
	if code != 0 || errs != "" {
		t.Fatalf("auto with an old pi: exit %d: %s", code, errs)
	}
	if l := typed(jsonLines(t, out), "runtime_launched"); len(l) != 1 || l[0]["engine"] != "builtin" {
		t.Errorf("launch = %v", l)
	}
}

// The tests that bring their own fake model run on the built-in engine
// even when the environment points PI_TUI_PI at a pi (CI does): the CLI
// reads only the environment it is given.
func TestFakeModelTestsStayOnTheBuiltinEngine(t *testing.T) {
	t.Setenv("PI_TUI_PI", fakePi(t, fakepi.Script{}))
	c := newCLI(t)
	modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "from the fake model"} })
	code, out, errs := c.run("", "prompt", "--project", "mono", "--json", "hello")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if l := typed(jsonLines(t, out), "runtime_launched"); len(l) != 1 || l[0]["engine"] != "builtin" {
		t.Errorf("launch = %v", l)
	}
}

// rpc passes pi's own commands to the real pi (PI_TUI_PI) and answers in
// its own shape; the ones that would go around pi-tui are refused; with
// the built-in engine they stay unknown.
func TestRPCPassesPiCommandsThrough(t *testing.T) {
	c := realPiCLI(t)
	realPiProject(t, c, true, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	r := startRPC(t, c, "--project", "mono")
	r.send(`{"id":7,"type":"get_commands"}`)
	// The reply and the launch event travel apart (the event through the
	// broker), so either may come first: read until both have.
	var resp map[string]any
	var launched bool
	got := r.until(func(m map[string]any) bool {
		if m["type"] == "response" && m["command"] == "get_commands" {
			resp = m
		}
		launched = launched || m["type"] == "runtime_launched"
		return resp != nil && launched
	})
	data, _ := resp["data"].(map[string]any)
	if resp["success"] != true || resp["id"] != float64(7) || data["commands"] == nil {
		t.Errorf("get_commands = %v", resp)
	}
	if l := typed(got, "runtime_launched"); len(l) != 1 || l[0]["engine"] != "pi" {
		t.Errorf("launch = %v", l)
	}
	r.send(`{"id":"b","type":"bash","command":"id"}`)
	got = r.until(func(m map[string]any) bool { return m["type"] == "response" && m["command"] == "bash" })
	if e, _ := got[len(got)-1]["error"].(string); !strings.Contains(e, "outside pi-tui's approvals") {
		t.Errorf("bash = %v", got[len(got)-1])
	}
	// Only pi's commands that read pass: one that writes a file where the
	// client says, or changes what pi-tui owns, does not.
	for id, cmd := range map[string]string{
		"x": `{"id":"x","type":"export_html","outputPath":"/tmp/anywhere.html"}`,
		"r": `{"id":"r","type":"set_auto_retry","enabled":false}`,
		"q": `{"id":"q","type":"clear_queue"}`,
	} {
		r.send(cmd)
		got = r.until(func(m map[string]any) bool { return m["type"] == "response" && m["id"] == id })
		if e, _ := got[len(got)-1]["error"].(string); got[len(got)-1]["success"] != false || !strings.Contains(e, "not passed to pi") {
			t.Errorf("%s = %v", cmd, got[len(got)-1])
		}
	}
	evs := r.prompt("hello")
	if ends := typed(evs, "agent_end"); len(ends) != 1 {
		t.Errorf("prompt = %v", evs)
	}
}

// Without pi, rpc says why pi's commands are not answered: the built-in
// engine does not know them, and a chosen pi that cannot run is named.
func TestRPCPiCommandsWithoutPi(t *testing.T) {
	b := newCLI(t)
	modelRig(t, b, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	rb := startRPC(t, b, "--project", "mono")
	rb.send(`{"id":1,"type":"get_commands"}`)
	got := rb.until(func(m map[string]any) bool { return m["type"] == "response" })
	if e, _ := got[len(got)-1]["error"].(string); !strings.Contains(e, `unknown command "get_commands"`) {
		t.Errorf("builtin = %v", got[len(got)-1])
	}

	// With the pi engine chosen but no pi to run, the answer says so
	// rather than calling pi's command unknown.
	n := newCLI(t)
	modelRig(t, n, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	n.env["PI_TUI_PI"] = filepath.Join(t.TempDir(), "no-such-pi")
	rn := startRPC(t, n, "--project", "mono", "--engine", "pi")
	rn.send(`{"id":1,"type":"get_available_models"}`)
	got = rn.until(func(m map[string]any) bool { return m["type"] == "response" })
	if e, _ := got[len(got)-1]["error"].(string); !strings.Contains(e, "cannot run") || !strings.Contains(e, "no-such-pi") {
		t.Errorf("pi unusable = %v", got[len(got)-1])
	}
}

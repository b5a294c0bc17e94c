package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// thinkingRig is modelRig with a model that reasons (levels off … high).
func thinkingRig(t *testing.T, c *cli, script fakemodel.Script) *fakemodel.Server {
	t.Helper()
	fake, _ := modelRig(t, c, script)
	writeFile(t, filepath.Join(c.env["HOME"], ".pi", "agent", "models.json"), fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,
		"api":"openai-completions","apiKey":"FAKE_API_KEY","models":[{"id":"m1","reasoning":true,"contextWindow":200000,"maxTokens":4096}]}}}`, fake.URL))
	return fake
}

func effort(r fakemodel.Request) any { return r.Body["reasoning_effort"] }

// TestPromptThinking: --thinking sets the level of one prompt; without it
// settings.json's defaultThinkingLevel applies; a level that is not one
// is bad usage.
func TestPromptThinking(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	fake := thinkingRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	c.ok("prompt", "--project", "mono", "--thinking", "high", "hi")
	writeFile(t, filepath.Join(c.env["HOME"], ".pi", "agent", "settings.json"), `{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"low"}`)
	c.ok("prompt", "--project", "mono", "hi")
	c.ok("prompt", "--project", "mono", "--model", "fake/m1", "--thinking", "off", "hi")
	reqs := fake.Requests()
	if len(reqs) != 3 || effort(reqs[0]) != "high" || effort(reqs[1]) != "low" || effort(reqs[2]) != nil {
		t.Errorf("reasoning_effort = %v %v %v", effort(reqs[0]), effort(reqs[1]), effort(reqs[2]))
	}
	c.fails(2, `unknown thinking level "ultra": use off, minimal, low, medium, high or xhigh`, "prompt", "--project", "mono", "--thinking", "ultra", "hi")
}

// TestRPCSetThinkingLevel: set_thinking_level changes the level of the
// prompts after it (the runtime restarts: thinking-changed), says what the
// model will use, and get_state reports it.
func TestRPCSetThinkingLevel(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	fake := thinkingRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	r := startRPC(t, c, "--project", "mono")
	r.send(`{"id":"t1","type":"set_thinking_level","level":"xhigh"}`)
	resp := r.until(func(m map[string]any) bool { return m["type"] == "response" })
	d, _ := resp[len(resp)-1]["data"].(map[string]any)
	if resp[len(resp)-1]["success"] != true || d["level"] != "xhigh" || d["thinkingLevel"] != "high" {
		t.Errorf("set_thinking_level = %v", resp[len(resp)-1])
	}
	r.prompt("one")
	r.send(`{"id":"t2","type":"set_thinking_level","level":"minimal"}`)
	r.until(func(m map[string]any) bool { return m["type"] == "response" })
	evs := r.prompt("two")
	if ret := typed(evs, "runtime_retired"); len(ret) != 1 || ret[0]["reason"] != "thinking-changed" {
		t.Errorf("retired = %v", ret)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 || effort(reqs[0]) != "high" || effort(reqs[1]) != "minimal" {
		t.Errorf("reasoning_effort = %v, %v", effort(reqs[0]), effort(reqs[1]))
	}
	r.send(`{"id":"s","type":"get_state"}`)
	st := r.until(func(m map[string]any) bool { return m["type"] == "response" && m["id"] == "s" })
	if sd, _ := st[len(st)-1]["data"].(map[string]any); sd["thinkingLevel"] != "minimal" {
		t.Errorf("get_state = %v", st[len(st)-1])
	}
	r.send(`{"id":"t3","type":"set_thinking_level","level":"lots"}`)
	bad := r.until(func(m map[string]any) bool { return m["type"] == "response" && m["id"] == "t3" })
	if b := bad[len(bad)-1]; b["success"] != false || !strings.Contains(fmt.Sprint(b["error"]), `unknown thinking level "lots"`) {
		t.Errorf("bad level = %v", b)
	}
}

// TestBadModelFilesSayWhereInOneLine: a malformed models.json or auth.json
// stops prompting with one line naming the file and the position, and
// shows none of auth.json's content.
func TestBadModelFilesSayWhereInOneLine(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	agent := filepath.Join(c.env["HOME"], ".pi", "agent")
	good, _ := os.ReadFile(filepath.Join(agent, "models.json"))
	writeFile(t, filepath.Join(agent, "models.json"), "{\n  \"providers\": {\n    \"fake\": {\"api\": \"openai-completions\"\n    \"baseUrl\": \"x\"}\n}}\n")
	c.fails(1, filepath.Join(agent, "models.json")+" is not valid JSON at line 4, column 5", "prompt", "--project", "mono", "hi")
	writeFile(t, filepath.Join(agent, "models.json"), string(good))
	writeFile(t, filepath.Join(agent, "auth.json"), `{"fake": {"type": "api_key", "key": "sk-SECRET-1234567890"},}`)
	code, _, errs := c.run("", "prompt", "--project", "mono", "hi")
	if code != 1 || !strings.Contains(errs, filepath.Join(agent, "auth.json")+" is not valid JSON at line 1, column 61") || strings.Contains(errs, "SECRET") {
		t.Errorf("auth.json: %d %q", code, errs)
	}
}

// TestKeysStayOutOfFiles: a key from auth.json (here printed by a
// !command) reaches the server and appears in no file pi-tui writes: not
// the database, not timing.log; a failing key command's output is never
// shown.
func TestKeysStayOutOfFiles(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	fake, _ := modelRig(t, c, readNestedThenAnswer)
	agent := filepath.Join(c.env["HOME"], ".pi", "agent")
	const key = "sk-live-SECRET-from-a-command-0123456789"
	writeFile(t, filepath.Join(agent, "auth.json"), `{"fake": {"type": "api_key", "key": "!printf %s `+key+`"}}`)
	os.Chmod(filepath.Join(agent, "auth.json"), 0o600)
	c.ok("prompt", "--project", "mono", "--json", "What does it do?")
	if len(fake.Requests()) < 2 {
		t.Fatalf("%d requests", len(fake.Requests()))
	}
	if _, err := os.Stat(filepath.Join(c.env["PI_TUI_DATA_DIR"], "timing.log")); err != nil {
		t.Fatalf("the tool call left no timing.log: %v", err)
	}
	filepath.WalkDir(c.env["PI_TUI_DATA_DIR"], func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), key) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
	writeFile(t, filepath.Join(agent, "auth.json"), `{"fake": {"type": "api_key", "key": "!echo `+key+`; exit 4"}}`)
	code, out, errs := c.run("", "prompt", "--project", "mono", "--json", "again")
	if code != 1 || strings.Contains(out+errs, key) || !strings.Contains(errs, "the command in auth.json's key for fake failed (exit status 4)") {
		t.Errorf("failing command: %d\n%s\n%s", code, out, errs)
	}
}

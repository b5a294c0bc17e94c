package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/fakemodel"
)

// rpcSession drives `pi-tui rpc` through its real entry point.
type rpcSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines *bufio.Scanner
	done  chan int
	// exited is closed when run has returned: the host's background work
	// (a checkpoint clean, a prewarm's stat cache) writes into the test's
	// data dir until then.
	exited chan struct{}
	n      int
}

func startRPC(t *testing.T, c *cli, args ...string) *rpcSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	r := &rpcSession{t: t, in: inW, lines: bufio.NewScanner(outR), done: make(chan int, 1), exited: make(chan struct{})}
	r.lines.Buffer(make([]byte, 1<<20), 16<<20)
	go func() {
		var errb strings.Builder
		code := run(context.Background(), append([]string{"rpc"}, args...), inR, outW, &errb, func(k string) string { return c.env[k] })
		if code != 0 {
			t.Errorf("rpc exited %d: %s", code, errb.String())
		}
		outW.Close()
		r.done <- code
		close(r.exited)
	}()
	// Registered after the test's TempDir, so it runs before the dir is
	// removed: end the input, take whatever rpc still writes, and wait for
	// run to return.
	t.Cleanup(func() {
		inW.Close()
		io.Copy(io.Discard, outR)
		<-r.exited
	})
	return r
}

func (r *rpcSession) send(cmd string) {
	r.t.Helper()
	if _, err := fmt.Fprintln(r.in, cmd); err != nil {
		r.t.Fatal(err)
	}
}

// until reads lines until one matches, returning every line read.
func (r *rpcSession) until(match func(map[string]any) bool) []map[string]any {
	r.t.Helper()
	var seen []map[string]any
	for r.lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(r.lines.Bytes(), &m); err != nil {
			r.t.Fatalf("rpc wrote a line that is not JSON: %q", r.lines.Text())
		}
		seen = append(seen, m)
		if match(m) {
			return seen
		}
	}
	r.t.Fatalf("rpc output ended; saw %v", seen)
	return nil
}

// prompt sends a prompt and returns its events up to agent_end.
func (r *rpcSession) prompt(text string) []map[string]any {
	r.t.Helper()
	r.n++
	r.send(fmt.Sprintf(`{"id":"p%d","type":"prompt","message":%q}`, r.n, text))
	return r.until(func(m map[string]any) bool { return m["type"] == "agent_end" })
}

func typed(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

func modelRig(t *testing.T, c *cli, script fakemodel.Script) (*fakemodel.Server, string) {
	t.Helper()
	fake := fakeAgent(t, c, script)
	root := mkdir(t, c.env["HOME"], "mono")
	writeFile(t, filepath.Join(root, "AGENTS.md"), "Root rule: keep functions short.")
	writeFile(t, filepath.Join(root, "packages", "api", "AGENTS.md"), "API rule: wrap errors.")
	writeFile(t, filepath.Join(root, "packages", "api", "handler.go"), "package api\n\nfunc Handle() {}\n")
	c.ok("projects", "add", root, "--trust", "--name", "mono")
	return fake, root
}

// fakeAgent makes the fake model, scripted by script, pi's default model
// in c's agent dir, with its key in the environment.
func fakeAgent(t *testing.T, c *cli, script fakemodel.Script) *fakemodel.Server {
	t.Helper()
	fake := fakemodel.New(t, script)
	agentDir := filepath.Join(c.env["HOME"], ".pi", "agent")
	writeFile(t, filepath.Join(agentDir, "models.json"), fake.ModelsJSON("openai-completions"))
	writeFile(t, filepath.Join(agentDir, "settings.json"), `{"defaultProvider":"fake","defaultModel":"m1"}`)
	c.env["FAKE_API_KEY"] = "test-key"
	return fake
}

func readNestedThenAnswer(n int, req fakemodel.Request) fakemodel.Reply {
	if req.LastToolResult == "" {
		return fakemodel.Reply{Calls: []fakemodel.Call{{ID: fmt.Sprintf("call%d", n), Name: "read", Args: map[string]string{"path": "packages/api/handler.go"}}}}
	}
	return fakemodel.Reply{Text: "Handle does nothing yet."}
}

func TestRPCEndToEnd(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	fake, root := modelRig(t, c, readNestedThenAnswer)
	memFile := filepath.Join(t.TempDir(), "mem.txt")
	os.WriteFile(memFile, []byte("The staging server is called hermes."), 0o644)
	c.ok("memory", "set", "mono", "--file", memFile)

	r := startRPC(t, c, "--project", "mono")
	evs := r.prompt("What does the handler do?")
	if resp := typed(evs, "response"); len(resp) != 1 || resp[0]["success"] != true || resp[0]["command"] != "prompt" {
		t.Fatalf("response = %v", resp)
	}
	if l := typed(evs, "runtime_launched"); len(l) != 1 || l[0]["reason"] != "new" {
		t.Errorf("launch = %v", l)
	}
	ends := typed(evs, "tool_execution_end")
	if len(ends) != 1 {
		t.Fatalf("tool events = %v", ends)
	}
	pre, _ := ends[0]["preflight"].(map[string]any)
	if pre == nil || pre["cache"] != "miss" || pre["ms"] == nil || pre["fallback"] != "" {
		t.Errorf("preflight markers = %v", ends[0]["preflight"])
	}
	if _, ok := ends[0]["toolMs"]; !ok {
		t.Errorf("no toolMs apart from preflight: %v", ends[0])
	}
	if end := typed(evs, "agent_end"); end[0]["text"] != "Handle does nothing yet." {
		t.Errorf("agent_end = %v", end[0])
	}
	if len(typed(evs, "message_update")) == 0 {
		t.Error("no streamed message_update events")
	}
	sys := fake.Requests()[0].System
	for _, want := range []string{"Root rule: keep functions short.", "The staging server is called hermes."} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(sys, "API rule") {
		t.Error("the nested chain leaked into the system prompt")
	}

	// Nothing changed: reused.
	if evs = r.prompt("Again."); len(typed(evs, "runtime_reused")) != 1 {
		t.Errorf("no reuse: %v", typed(evs, "runtime_launched"))
	}

	// AGENTS.md edited on disk: retired with instructions-changed.
	writeFile(t, filepath.Join(root, "AGENTS.md"), "Root rule: keep functions tiny.")
	evs = r.prompt("And now?")
	if !hasReason(evs, "runtime_retired", "instructions-changed") {
		t.Errorf("no instructions-changed retirement: %v", typed(evs, "runtime_retired"))
	}
	reqs := fake.Requests()
	if !strings.Contains(reqs[len(reqs)-1].System, "keep functions tiny") {
		t.Error("the next request does not carry the new instructions")
	}

	// Memory set by another process: memory-changed.
	bin := buildBinary(t)
	cmd := exec.Command(bin, "memory", "set", "mono", "--file", "-")
	cmd.Env = []string{"HOME=" + c.env["HOME"], "PI_TUI_DATA_DIR=" + c.env["PI_TUI_DATA_DIR"]}
	cmd.Stdin = strings.NewReader("The staging server is now called iris.")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("memory set: %v %s", err, out)
	}
	evs = r.prompt("Memory?")
	if !hasReason(evs, "runtime_retired", "memory-changed") {
		t.Errorf("no memory-changed retirement: %v", typed(evs, "runtime_retired"))
	}
	reqs = fake.Requests()
	if !strings.Contains(reqs[len(reqs)-1].System, "iris") {
		t.Error("the new memory did not reach the model")
	}

	// Bad JSON gets an error response and the process keeps serving.
	r.send(`{"type": "prompt", "message": `)
	bad := r.until(func(m map[string]any) bool { return m["type"] == "response" })
	if last := bad[len(bad)-1]; last["success"] != false || !strings.Contains(fmt.Sprint(last["error"]), "invalid JSON") {
		t.Errorf("bad JSON response = %v", last)
	}
	r.send(`{"id":"s1","type":"get_state"}`)
	st := r.until(func(m map[string]any) bool { return m["id"] == "s1" })
	data, _ := st[len(st)-1]["data"].(map[string]any)
	if data["runtime"] != "idle" || data["model"] != "fake/m1" {
		t.Errorf("state = %v", st[len(st)-1])
	}
	r.send(`{"id":"m1","type":"set_model","model":"nosuch/x"}`)
	sm := r.until(func(m map[string]any) bool { return m["id"] == "m1" })
	if sm[len(sm)-1]["success"] != false {
		t.Errorf("unknown model accepted: %v", sm[len(sm)-1])
	}
	r.in.Close()
	// Keep reading: on exit rpc still reports the runtime's retirement.
	var tail []map[string]any
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for r.lines.Scan() {
			var m map[string]any
			json.Unmarshal(r.lines.Bytes(), &m)
			tail = append(tail, m)
		}
	}()
	select {
	case code := <-r.done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rpc did not exit after its input closed")
	}
	<-drained
	if !hasReason(tail, "runtime_retired", "shutdown") {
		t.Errorf("no shutdown retirement at exit: %v", tail)
	}
}

func hasReason(evs []map[string]any, typ, reason string) bool {
	for _, e := range typed(evs, typ) {
		if e["reason"] == reason {
			return true
		}
	}
	return false
}

func TestPromptCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, readNestedThenAnswer)
	code, out, errs := c.run("", "prompt", "--project", "mono", "What does it do?")
	if code != 0 || out != "Handle does nothing yet.\n" {
		t.Fatalf("prompt = %d %q %q", code, out, errs)
	}
	code, out, _ = c.run("", "prompt", "--project", "mono", "--continue", "--json", "More?")
	if code != 0 || !strings.Contains(out, `"type":"tool_execution_end"`) || !strings.Contains(out, `"preflight"`) {
		t.Fatalf("prompt --json = %d %s", code, out)
	}
	var list []map[string]any
	json.Unmarshal([]byte(c.ok("sessions", "list", "mono", "--json")), &list)
	if len(list) != 1 || list[0]["title"] != "What does it do?" {
		t.Errorf("sessions = %v (--continue should reuse the session)", list)
	}
}

func TestRPCContractDetails(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var fail atomic.Bool
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		if fail.Load() {
			return fakemodel.Reply{Status: 401}
		}
		return fakemodel.Reply{Text: "hi"}
	})
	r := startRPC(t, c, "--project", "mono")
	evs := r.prompt("one")
	end := typed(evs, "agent_end")[0]
	if end["stopReason"] != "end" {
		t.Errorf("agent_end stopReason = %v", end["stopReason"])
	}
	u1 := end["usage"].(map[string]any)["input"]
	evs = r.prompt("two")
	if u2 := typed(evs, "agent_end")[0]["usage"].(map[string]any)["input"]; u2 != u1 {
		t.Errorf("usage is not per prompt: %v then %v", u1, u2)
	}
	if typed(evs, "runtime_reused")[0]["reason"] != "unchanged" {
		t.Errorf("reuse without a reason: %v", typed(evs, "runtime_reused"))
	}
	for _, bad := range []string{`{"id":"b1","type":"branch"}`, `{"id":"b2","type":"branch","entryId":"nope"}`,
		`{"id":"m1","type":"set_model"}`, `{"id":"m2","type":"set_model","model":"fake/unlisted"}`} {
		r.send(bad)
		resp := r.until(func(m map[string]any) bool { return m["type"] == "response" })
		if last := resp[len(resp)-1]; last["success"] != false || last["error"] == "" {
			t.Errorf("%s accepted: %v", bad, last)
		}
	}
	// A failing model: exactly one agent_end, with the reason.
	fail.Store(true)
	evs = r.prompt("three")
	r.send(`{"id":"s","type":"get_state"}`)
	more := r.until(func(m map[string]any) bool { return m["id"] == "s" })
	if n := len(typed(append(evs, more...), "agent_end")); n != 1 {
		t.Errorf("%d agent_end events for one failed prompt", n)
	}
	if !strings.Contains(fmt.Sprint(typed(evs, "agent_end")[0]["error"]), "API key") {
		t.Errorf("agent_end = %v", typed(evs, "agent_end")[0])
	}
}

func TestPromptSaysWhatWasDenied(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var told atomic.Value // the tool result the model read
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		if req.LastToolResult == "" {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "w", Name: "write", Args: map[string]string{"path": "x.txt", "content": "x"}}}}
		}
		if told.Load() == nil {
			told.Store(req.LastToolResult)
		}
		return fakemodel.Reply{Text: "done"}
	})
	// The answer is printed, and the exit status tells a script that
	// it may be incomplete.
	code, out, errs := c.run("", "prompt", "--project", "mono", "write it")
	if code != exitDenied || out != "done\n" || !strings.Contains(errs, "1 tool call needed approval and was denied (write)") || !strings.Contains(errs, "--yes") ||
		strings.Count(errs, "\n") != 1 {
		t.Errorf("prompt = %d %q %q", code, out, errs)
	}
	// Nobody was asked, and the model is told so, not that a user said no.
	if got, _ := told.Load().(string); !strings.Contains(got, "This write call needs approval, and this run (pi-tui prompt without --yes) gives none") ||
		strings.Contains(got, "The user denied") {
		t.Errorf("the model read %q", got)
	}
	if code, out, errs := c.run("", "prompt", "--project", "mono", "--yes", "write it"); code != 0 || out != "done\n" {
		t.Errorf("prompt --yes = %d %q %q", code, out, errs)
	}
}

// A line longer than the 16 MiB limit gets an error response and the
// commands after it are still answered.
func TestRPCOverlongLineIsAnsweredAndSkipped(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	r := startRPC(t, c, "--project", "mono")
	go func() {
		// The pipe blocks until rpc reads, so write from a goroutine.
		long := `{"id":"big","type":"prompt","message":"` + strings.Repeat("x", 17<<20) + `"}`
		fmt.Fprintln(r.in, long)
		fmt.Fprintln(r.in, `{"id":"after","type":"get_state"}`)
	}()
	seen := r.until(func(m map[string]any) bool { return m["id"] == "after" })
	resp := typed(seen, "response")
	if len(resp) != 2 || resp[0]["success"] != false || !strings.Contains(fmt.Sprint(resp[0]["error"]), "16 MiB") {
		t.Fatalf("responses = %v", resp)
	}
	if resp[1]["success"] != true {
		t.Errorf("the command after the long line failed: %v", resp[1])
	}
}

// abort is answered at once, whatever the queue holds, and drops the
// prompts that were waiting.
func TestRPCAbortIsAnsweredWhileManyPromptsWait(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	hold := make(chan struct{})
	defer close(hold)
	started := make(chan struct{}, 1)
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			started <- struct{}{}
			return fakemodel.Reply{Text: "slow", Hold: hold}
		}
		return fakemodel.Reply{Text: "fast"}
	})
	r := startRPC(t, c, "--project", "mono")
	go func() {
		for i := range 70 {
			fmt.Fprintf(r.in, `{"id":"p%d","type":"prompt","message":"m%d"}`+"\n", i, i)
		}
		<-started
		fmt.Fprintln(r.in, `{"id":"a","type":"abort"}`)
	}()
	seen := r.until(func(m map[string]any) bool { return m["id"] == "a" })
	for _, e := range seen {
		if e["type"] == "agent_end" {
			t.Fatalf("abort was answered only after a prompt ended: %v", seen)
		}
	}
	a := seen[len(seen)-1]
	data, _ := a["data"].(map[string]any)
	if a["success"] != true || data["aborted"] != true || data["dropped"] != float64(69) {
		t.Fatalf("abort = %v", a)
	}
	// The aborted prompt ends; nothing queued runs after it.
	r.until(func(m map[string]any) bool { return m["type"] == "agent_end" })
	r.send(`{"id":"s","type":"get_state"}`)
	rest := r.until(func(m map[string]any) bool { return m["id"] == "s" })
	if n := len(typed(rest, "agent_start")); n != 0 {
		t.Errorf("%d dropped prompts ran after the abort", n)
	}
}

// What the model says, and what a folder is called, reach the user's
// terminal with control characters shown as text: an answer cannot set
// the clipboard, retitle the window or hide text. --json stays exact.
func TestCLIOutputShowsControlsAsText(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	hostile := "hello \x1b]52;c;cHduZWQ=\x07 \x1b[8mhidden\x1b[0m \x1b]0;TITLE\x07 end"
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: hostile} })
	out := c.ok("prompt", "--project", "mono", "hi")
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) || !strings.Contains(out, `\x1b]52;c;`) {
		t.Errorf("prompt printed %q", out)
	}
	code, js, _ := c.run("", "prompt", "--project", "mono", "--json", "hi")
	if code != 0 || !strings.Contains(js, `\u001b]52;c;`) {
		t.Errorf("--json lost the exact text: %q", js)
	}
	evil := mkdir(t, c.env["HOME"], "evil\x1b]0;PTITLE\x07")
	added := c.ok("projects", "add", evil, "--name", "evil")
	listed := c.ok("projects", "list")
	for _, s := range []string{added, listed} {
		if strings.ContainsRune(s, 0x1b) || !strings.Contains(s, `evil\x1b]0;PTITLE\x07`) {
			t.Errorf("a folder name reached the terminal raw: %q", s)
		}
	}
}

// abort stops the prompt that runs, even after new_session made another
// session current.
func TestRPCAbortAfterNewSession(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	hold := make(chan struct{})
	defer close(hold)
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		return fakemodel.Reply{Text: "slow", Hold: hold}
	})
	r := startRPC(t, c, "--project", "mono")
	r.send(`{"id":"p","type":"prompt","message":"take your time"}`)
	r.until(func(m map[string]any) bool { return m["type"] == "agent_start" })
	r.send(`{"id":"n","type":"new_session"}`)
	r.until(func(m map[string]any) bool { return m["id"] == "n" })
	r.send(`{"id":"a","type":"abort"}`)
	// The abort's answer and the turn's end come in either order: the
	// turn may end, and its agent_end be written, before the answer is.
	// (Waiting for agent_end after the answer hung the suite once.)
	var a, end map[string]any
	r.until(func(m map[string]any) bool {
		switch {
		case m["id"] == "a":
			a = m
		case m["type"] == "agent_end":
			end = m
		}
		return a != nil && end != nil
	})
	if data, _ := a["data"].(map[string]any); data["aborted"] != true {
		t.Fatalf("abort = %v", a)
	}
	if end["stopReason"] != "aborted" {
		t.Errorf("agent_end = %v", end)
	}
}

// A session begun with prompt is a pi file, and the Projects list counts it.
func TestPromptedSessionIsCounted(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "hi"} })
	c.ok("prompt", "--project", "mono", "hello")
	var list []map[string]any
	if err := json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0]["sessions"] != float64(1) {
		t.Errorf("projects list = %v", list)
	}
	files, _ := filepath.Glob(filepath.Join(c.env["HOME"], ".pi", "agent", "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files = %v", files)
	}
	// A session pi began in the same folder counts too; one removed by hand
	// stops counting.
	b, _ := os.ReadFile(files[0])
	other := filepath.Join(filepath.Dir(files[0]), "2026-01-01T00-00-00-000Z_0190d7a0-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(other, b, 0o600); err != nil {
		t.Fatal(err)
	}
	counts := func() any {
		var list []map[string]any
		json.Unmarshal([]byte(c.ok("projects", "list", "--json")), &list)
		return list[0]["sessions"]
	}
	if n := counts(); n != float64(2) {
		t.Errorf("with a session begun in pi: %v sessions, want 2", n)
	}
	os.Remove(files[0])
	os.Remove(other)
	if n := counts(); n != float64(0) {
		t.Errorf("with the files removed: %v sessions, want 0", n)
	}
}

// A client that queues more text than the queue holds is told so, one
// error response a refused command, and what was queued still runs in
// order: memory stays bounded whatever the client sends.
func TestRPCQueueIsBounded(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	hold := make(chan struct{})
	started := make(chan struct{}, 1)
	modelRig(t, c, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			started <- struct{}{}
			return fakemodel.Reply{Text: "slow", Hold: hold}
		}
		return fakemodel.Reply{Text: "fast"}
	})
	r := startRPC(t, c, "--project", "mono")
	big := strings.Repeat("x", 5<<20)
	const sent = 16 // 80 MiB of text against a 64 MiB bound
	go func() {
		fmt.Fprintln(r.in, `{"id":"p0","type":"prompt","message":"first"}`)
		<-started
		for i := 1; i <= sent; i++ {
			fmt.Fprintf(r.in, `{"id":"p%d","type":"prompt","message":"%s"}`+"\n", i, big)
		}
		fmt.Fprintln(r.in, `{"id":"a","type":"abort"}`)
	}()
	seen := r.until(func(m map[string]any) bool { return m["id"] == "a" })
	refused := 0
	for _, e := range seen {
		if e["type"] != "response" || e["command"] != "prompt" {
			continue
		}
		if e["success"] == false {
			if msg, _ := e["error"].(string); !strings.Contains(msg, "too much is waiting") {
				t.Errorf("refusal says %q", msg)
			}
			refused++
		}
	}
	a := seen[len(seen)-1]
	data, _ := a["data"].(map[string]any)
	if refused == 0 || data["dropped"] != float64(sent-refused) {
		t.Fatalf("refused %d of %d; abort = %v", refused, sent, a)
	}
	close(hold)
	r.until(func(m map[string]any) bool { return m["type"] == "agent_end" })
}

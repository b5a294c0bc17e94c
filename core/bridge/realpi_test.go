package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/memory"
	"github.com/pi-tui/pi-tui/core/toolpolicy"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// findPi returns the command running a real pi 1.6 ($PI_TUI_PI, which
// .ci/run points at the pi it installs, or pi on PATH); without one the
// test is skipped with the reason.
func findPi(t *testing.T) []string {
	t.Helper()
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	return argv
}

// notes is a memory writer that keeps what the agent saved.
type notes struct{ saved []memory.Op }

func (n *notes) Remember(_ context.Context, op memory.Op) (memory.Change, error) {
	n.saved = append(n.saved, op)
	return memory.Change{Action: op.Action, After: &memory.Entry{ID: "m1", Content: op.Content}}, nil
}

// runPi runs one prompt through real pi in rpc mode with the written
// bridge, against a Server with h, and returns when pi's agent settled.
func runPi(t *testing.T, pi []string, root, session string, srv *Server, model *fakemodel.Server, prompt string) {
	t.Helper()
	runPiEach(t, pi, root, session, srv, model, []string{prompt}, nil)
}

// runPiEach runs prompts one after another in one pi, calling between
// (when set) with the index of the next prompt once the one before has
// settled.
func runPiEach(t *testing.T, pi []string, root, session string, srv *Server, model *fakemodel.Server, prompts []string, between func(next int)) {
	t.Helper()
	bridgeFile, err := Install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agentDir := t.TempDir()
	write(t, filepath.Join(agentDir, "models.json"), model.ModelsJSON("openai-completions"))
	write(t, filepath.Join(agentDir, "settings.json"), `{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"off"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(pi[1:], "--mode", "rpc", "--session", session, "--no-context-files", "-e", bridgeFile)
	cmd := exec.CommandContext(ctx, pi[0], args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir, "HOME="+t.TempDir(), "FAKE_API_KEY=sk-fake")
	cmd.Env = append(cmd.Env, srv.Env()...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	settled := false
	for i, prompt := range prompts {
		if i > 0 && between != nil {
			between(i)
		}
		fmt.Fprintf(stdin, "%s\n", mustJSON(map[string]any{"id": fmt.Sprintf("p%d", i), "type": "prompt", "message": prompt}))
		settled = false
		for sc.Scan() {
			var ev struct {
				Type    string `json:"type"`
				Success *bool  `json:"success"`
				Error   string `json:"error"`
			}
			json.Unmarshal(sc.Bytes(), &ev)
			if ev.Type == "response" && ev.Success != nil && !*ev.Success {
				t.Fatalf("pi refused the prompt: %s", ev.Error)
			}
			// A prompt followed by another waits until pi is idle again.
			if ev.Type == "agent_settled" || ev.Type == "agent_end" && i == len(prompts)-1 {
				settled = true
				break
			}
		}
		if !settled {
			break
		}
	}
	stdin.Close()
	cmd.Wait()
	if !settled {
		t.Fatalf("pi ended before the prompt settled; stderr:\n%s", stderr.String())
	}
	srv.Close()
	if err := <-served; err != nil {
		t.Errorf("the channel ended with an error: %v", err)
	}
	if strings.Contains(stderr.String(), "host is gone") && !t.Failed() {
		t.Logf("pi's stderr:\n%s", stderr.String())
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRealPiThroughTheBridge(t *testing.T) {
	pi := findPi(t)
	root := project(t)
	session := filepath.Join(t.TempDir(), "s.jsonl")
	model := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		switch n {
		case 0:
			return fakemodel.Reply{Calls: []fakemodel.Call{
				{ID: "c_out", Name: "read", Args: map[string]any{"path": "../outside/secret.txt"}},
				{ID: "c_bash", Name: "bash", Args: map[string]any{"command": "echo hi"}},
			}}
		case 1:
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c_sub1", Name: "read", Args: map[string]any{"path": "sub/file.txt"}}}}
		case 2:
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c_sub2", Name: "read", Args: map[string]any{"path": "sub/file.txt"}}}}
		}
		return fakemodel.Reply{Text: "done"}
	})
	const systemText = "<instructions>\nPI-TUI-ROOT-CHAIN\n</instructions>\n\n<project-memory>\nMEMO\n</project-memory>"
	var asked []events.Approval
	h := NewDecisions(Deps{Root: root, SessionFile: session, Permission: toolpolicy.PermissionAsk, BaseChain: []string{"AGENTS.md"},
		Preflight: folderChain{root: root, trusted: true},
		System:    func(context.Context) (string, error) { return systemText, nil },
		Approve: func(_ context.Context, a events.Approval) (bool, error) {
			asked = append(asked, a)
			return false, nil
		},
		Memory: &notes{}})
	defer h.Close()
	srv, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	runPi(t, pi, root, session, srv, model, "go")

	reqs := model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("the model got %d requests, want 4", len(reqs))
	}
	if n := strings.Count(reqs[0].System, "PI-TUI-ROOT-CHAIN"); n != 1 || !strings.Contains(reqs[0].System, "<project-memory>") {
		t.Errorf("pi's system prompt carries pi-tui's chain %d times (want once, with the memory frame):\n%s", n, reqs[0].System)
	}
	results := toolResults(reqs[1].Raw)
	if r := results["c_out"]; !strings.Contains(r, "is outside the project root") || strings.Contains(r, "SECRET") {
		t.Errorf("the read outside the root gave %q", r)
	}
	if r := results["c_bash"]; !strings.Contains(r, "The user denied this bash call") {
		t.Errorf("the denied bash call gave %q", r)
	}
	if len(asked) != 1 || asked[0].Tool != "bash" || asked[0].Command != "echo hi" {
		t.Errorf("the approver was asked %+v, want bash echo hi once", asked)
	}
	first := toolResults(reqs[2].Raw)["c_sub1"]
	if strings.Count(first, "NESTED-RULES") != 1 || !strings.Contains(first, "hello from sub") {
		t.Errorf("the first read under sub does not carry sub/AGENTS.md once:\n%s", first)
	}
	if again := toolResults(reqs[3].Raw)["c_sub2"]; strings.Contains(again, "NESTED-RULES") || strings.Contains(again, "<instructions>") {
		t.Errorf("the second read under sub on the same branch carries a block again:\n%s", again)
	}
	if !strings.Contains(toolNames(reqs[0].Raw), `"remember"`) {
		t.Errorf("remember is not offered where the project allows it: %s", toolNames(reqs[0].Raw))
	}
	// The delivery is recorded in pi's own file, by pi.
	b, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"customType":"`+RecordType+`"`); n != 1 || !strings.Contains(string(b), `"label":"sub/AGENTS.md"`) {
		t.Errorf("pi's session file holds %d delivery records (want 1, naming sub/AGENTS.md):\n%s", n, b)
	}
	pre, del, path := h.ToolInfo("c_sub1")
	if pre == nil || pre.Cache != "miss" || del == nil || len(del.Delivered) != 1 || path != "sub/file.txt" {
		t.Errorf("ToolInfo(c_sub1) = %+v, %+v, %q", pre, del, path)
	}
}

func TestRealPiNoRememberWhereNotAllowed(t *testing.T) {
	pi := findPi(t)
	root := project(t)
	model := fakemodel.New(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} })
	h := NewDecisions(Deps{Root: root, SessionFile: filepath.Join(t.TempDir(), "s.jsonl")})
	srv, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	runPi(t, pi, root, filepath.Join(t.TempDir(), "s.jsonl"), srv, model, "hi")
	reqs := model.Requests()
	if len(reqs) == 0 || strings.Contains(toolNames(reqs[0].Raw), `"remember"`) {
		t.Errorf("remember is offered where the project does not allow it")
	}
}

// toolResults maps tool call ids to the text of their results in an
// OpenAI request body.
func toolResults(raw string) map[string]string {
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte(raw), &body)
	out := map[string]string{}
	for _, m := range body.Messages {
		if m.Role != "tool" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				s += p.Text
			}
		}
		out[m.ToolCallID] = s
	}
	return out
}

func toolNames(raw string) string {
	var body struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal([]byte(raw), &body)
	var names []string
	for _, t := range body.Tools {
		names = append(names, fmt.Sprintf("%q", t.Function.Name))
	}
	return strings.Join(names, ",")
}

// pi works in the folder its session file's header names. Given a file
// that names a folder other than the root the host bound, every tool call
// is refused with a sentence naming both folders, and none runs there:
// the read of a file that exists only in that other folder gives nothing
// of it, and a write writes nothing anywhere.
func TestRealPiWorkingElsewhereIsRefused(t *testing.T) {
	pi := findPi(t)
	root := project(t)
	elsewhere := filepath.Join(filepath.Dir(root), "outside")
	session := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, session, `{"type":"session","version":3,"id":"01a24000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":`+mustJSON(elsewhere)+"}\n")
	model := fakemodel.New(t, func(n int, req fakemodel.Request) fakemodel.Reply {
		if n == 0 {
			return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "c_rd", Name: "read", Args: map[string]any{"path": "secret.txt"}},
				{ID: "c_wr", Name: "write", Args: map[string]any{"path": "made.txt", "content": "x"}}}}
		}
		return fakemodel.Reply{Text: "done"}
	})
	h := NewDecisions(Deps{Root: root, SessionFile: session, Permission: toolpolicy.PermissionFullAuto})
	defer h.Close()
	srv, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	runPi(t, pi, root, session, srv, model, "go")
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	r := toolResults(reqs[1].Raw)["c_rd"]
	if !strings.Contains(r, "pi works in "+mustJSON(elsewhere)+", not in this session's folder "+mustJSON(root)) || strings.Contains(r, "SECRET") {
		t.Errorf("the read made while pi works elsewhere gave %q", r)
	}
	if r := toolResults(reqs[1].Raw)["c_wr"]; !strings.Contains(r, "pi works in ") {
		t.Errorf("the write made while pi works elsewhere gave %q", r)
	}
	for _, dir := range []string{elsewhere, root} {
		if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
			t.Errorf("the write ran in %s", dir)
		}
	}
}

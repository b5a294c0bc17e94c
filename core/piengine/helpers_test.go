package piengine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// fakeBin is the fake pi, built once for the test binary.
var fakeBin string

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		parentDeathHelper()
		return
	}
	dir, err := os.MkdirTemp("", "fakepi")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin, err = fakepi.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build fakepi:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// recorder is a Publisher that keeps every event and lets a test wait
// for the one it asserts.
type recorder struct {
	mu     sync.Mutex
	evs    []events.Event
	signal chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 1)} }

func (r *recorder) Publish(e events.Event) {
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

func (r *recorder) all() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Event(nil), r.evs...)
}

// waitFor waits until an event satisfies pred and returns it.
func (r *recorder) waitFor(t *testing.T, what string, pred func(events.Event) bool) events.Event {
	t.Helper()
	deadline := time.NewTimer(20 * time.Second)
	defer deadline.Stop()
	for {
		for _, e := range r.all() {
			if pred(e) {
				return e
			}
		}
		select {
		case <-r.signal:
		case <-deadline.C:
			t.Fatalf("no %s among %d events: %s", what, len(r.all()), kinds(r.all()))
		}
	}
}

func kinds(evs []events.Event) string {
	var b []string
	for _, e := range evs {
		b = append(b, strings.TrimPrefix(fmt.Sprintf("%T", e), "events."))
	}
	return strings.Join(b, " ")
}

func ofType[T events.Event](evs []events.Event) []T {
	var out []T
	for _, e := range evs {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// rig is one fake pi engine with its folders.
type rig struct {
	t    *testing.T
	e    *Engine
	rec  *recorder
	root string
	file string
}

type rigOpt func(*Config)

// launch starts the fake pi with script's replies and env (KEY=VALUE).
func launch(t *testing.T, script *fakepi.Script, env []string, opts ...rigOpt) *rig {
	t.Helper()
	r := &rig{t: t, rec: newRecorder(), root: t.TempDir()}
	r.file = filepath.Join(t.TempDir(), "s.jsonl")
	if script != nil {
		b, _ := json.Marshal(script)
		p := filepath.Join(t.TempDir(), "script.json")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, "FAKEPI_SCRIPT="+p)
	}
	cfg := Config{Publisher: r.rec, SessionID: "s1", Pi: Pi{Path: fakeBin, Version: "1.6.0"}, SessionFile: r.file, Root: r.root,
		AgentDir: t.TempDir(), ExtraEnv: env, TermGrace: 5 * time.Second, KillGrace: 5 * time.Second, CallTimeout: 20 * time.Second}
	for _, o := range opts {
		o(&cfg)
	}
	e, err := Launch(context.Background(), cfg)
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	r.e = e
	t.Cleanup(func() { e.Close() })
	return r
}

// withHost gives the engine a bridge channel answered by a stub host.
func withHost(h *hostStub) rigOpt {
	return func(c *Config) {
		c.BridgeSocket, c.BridgeToken = h.sock, h.token
		c.ToolInfo = h.toolInfo
	}
}

// hostStub answers the bridge protocol as pi-tui's host would, minimally:
// welcome, a system text, a gate that blocks bash, a delivery appended to
// each result; it records the methods in the order they came.
type hostStub struct {
	sock, token string
	mu          sync.Mutex
	methods     []string
	hello       map[string]any
}

func newHost(t *testing.T) *hostStub {
	dir, err := os.MkdirTemp("", "pb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := &hostStub{sock: filepath.Join(dir, "bridge.sock"), token: "0123abcd"}
	ln, err := net.Listen("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		ln.Close()
		defer conn.Close()
		h.serve(conn)
	}()
	return h
}

func (h *hostStub) serve(conn net.Conn) {
	in := bufio.NewReader(conn)
	line, err := in.ReadBytes('\n')
	if err != nil {
		return
	}
	var hello map[string]any
	json.Unmarshal(line, &hello)
	h.mu.Lock()
	h.hello = hello
	h.mu.Unlock()
	if hello["token"] != h.token {
		conn.Write([]byte(`{"type":"refused","error":"wrong token"}` + "\n"))
		return
	}
	conn.Write([]byte(`{"type":"welcome","protocol":1,"remember":true}` + "\n"))
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     int
			Method string
			Params map[string]any
		}
		json.Unmarshal(line, &req)
		h.mu.Lock()
		h.methods = append(h.methods, req.Method)
		h.mu.Unlock()
		var result any
		switch req.Method {
		case "system":
			result = map[string]any{"text": "<instruction-file label=\"AGENTS.md\">ROOT</instruction-file>"}
		case "tool_call":
			if req.Params["toolName"] == "bash" {
				result = map[string]any{"block": true, "reason": "The user denied this bash call."}
			} else {
				result = map[string]any{"block": false}
			}
		case "tool_result":
			result = map[string]any{"append": "<delivered/>", "entry": map[string]any{"customType": "pi-agent-guidance:subdirectory-context", "data": map[string]any{"n": 1}}}
		case "remember":
			result = map[string]any{"text": "Saved to project memory", "isError": false}
		case "trust":
			result = map[string]any{"trusted": "yes"}
		}
		b, _ := json.Marshal(map[string]any{"id": req.ID, "result": result})
		conn.Write(append(b, '\n'))
	}
}

func (h *hostStub) calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.methods...)
}

func (h *hostStub) toolInfo(id string) (*events.Preflight, *events.Delivery, string) {
	return &events.Preflight{Ms: 0.5, Cache: "miss"}, &events.Delivery{Chain: []string{"AGENTS.md"}}, "file-of-" + id
}

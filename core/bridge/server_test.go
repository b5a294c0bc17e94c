package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoHost answers every method at once; tool calls of "block" are blocked.
type echoHost struct{ remember bool }

func (h echoHost) RememberAllowed() bool { return h.remember }
func (echoHost) System(context.Context, SystemRequest) (SystemResult, error) {
	return SystemResult{Text: "SYS"}, nil
}
func (echoHost) ToolCall(_ context.Context, r ToolCallRequest) (ToolCallResult, error) {
	return ToolCallResult{Block: r.ToolName == "block", Reason: r.ToolCallID}, nil
}
func (echoHost) ToolResult(context.Context, ToolResultRequest) (ToolResultResult, error) {
	return ToolResultResult{}, nil
}
func (echoHost) Remember(context.Context, RememberRequest) (RememberResult, error) {
	return RememberResult{Text: "saved"}, nil
}
func (echoHost) Trust(context.Context, TrustRequest) (TrustResult, error) {
	return TrustResult{Trusted: "yes"}, nil
}

// peer is a Go bridge speaking the protocol.
type peer struct {
	c  net.Conn
	br *bufio.Reader
}

func dial(t testing.TB, s *Server) *peer {
	t.Helper()
	c, err := net.Dial("unix", s.Socket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &peer{c: c, br: bufio.NewReader(c)}
}

func (p *peer) send(t testing.TB, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if _, err := p.c.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

func (p *peer) read() (map[string]any, error) {
	line, err := p.br.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(line, &m)
}

func token(s *Server) string {
	for _, e := range s.Env() {
		if v, ok := strings.CutPrefix(e, EnvToken+"="); ok {
			return v
		}
	}
	return ""
}

func start(t testing.TB, h Host) (*Server, chan error) {
	t.Helper()
	s, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background()) }()
	return s, done
}

func greet(t testing.TB, s *Server) *peer {
	t.Helper()
	p := dial(t, s)
	p.send(t, map[string]any{"type": "hello", "token": token(s), "protocol": 1})
	m, err := p.read()
	if err != nil || m["type"] != "welcome" {
		t.Fatalf("hello: %v %v", m, err)
	}
	return p
}

func TestListenMakesAPrivateFolder(t *testing.T) {
	s, _ := start(t, echoHost{})
	fi, err := os.Stat(strings.TrimSuffix(s.Socket(), "/bridge.sock"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket's folder: %v %v", fi.Mode(), err)
	}
	if len(token(s)) != 64 {
		t.Errorf("the token %q is not 32 bytes of hex", token(s))
	}
}

func TestWrongTokenIsRefusedAndTheRightOneStillGetsIn(t *testing.T) {
	s, _ := start(t, echoHost{})
	bad := dial(t, s)
	bad.send(t, map[string]any{"type": "hello", "token": strings.Repeat("0", 64), "protocol": 1})
	if m, _ := bad.read(); m["type"] != "refused" {
		t.Fatalf("a wrong token got %v", m)
	}
	if _, err := bad.read(); err == nil {
		t.Fatal("the connection with a wrong token stays open")
	}
	p := greet(t, s)
	p.send(t, map[string]any{"id": 1, "method": "system"})
	if m, _ := p.read(); m["result"].(map[string]any)["text"] != "SYS" {
		t.Fatalf("system: %v", m)
	}
}

func TestSecondPeerIsRefused(t *testing.T) {
	s, _ := start(t, echoHost{})
	greet(t, s)
	if _, err := os.Stat(s.Socket()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket is still there once the peer is in: %v", err)
	}
	if c, err := net.Dial("unix", s.Socket()); err == nil {
		c.Close()
		t.Fatal("a second peer could connect")
	}
}

func TestWelcomeOffersRememberWithTheBuiltinSchema(t *testing.T) {
	s, _ := start(t, echoHost{remember: true})
	p := dial(t, s)
	p.send(t, map[string]any{"type": "hello", "token": token(s), "protocol": 1})
	m, _ := p.read()
	tool, _ := m["rememberTool"].(map[string]any)
	if m["remember"] != true || tool["name"] != "remember" || !strings.Contains(fmt.Sprint(tool["parameters"]), "replace") {
		t.Fatalf("welcome: %v", m)
	}
}

func TestHugeHelloIsRefused(t *testing.T) {
	s, _ := start(t, echoHost{})
	p := dial(t, s)
	p.c.Write([]byte(`{"type":"hello","token":"` + strings.Repeat("a", 8<<10) + "\"}\n"))
	if m, _ := p.read(); m["type"] != "refused" {
		t.Fatalf("a 8 KiB hello got %v", m)
	}
	greet(t, s) // and the real peer still gets in
}

func TestHugeLineEndsTheChannelWithAnError(t *testing.T) {
	s, done := start(t, echoHost{})
	p := greet(t, s)
	go func() {
		big := make([]byte, MaxLineBytes+2)
		for i := range big {
			big[i] = 'x'
		}
		big[len(big)-1] = '\n'
		p.c.Write(big)
	}()
	if err := <-done; !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("Serve returned %v, want ErrLineTooLong", err)
	}
}

func TestGarbageEndsTheChannelWithAnError(t *testing.T) {
	s, done := start(t, echoHost{})
	p := greet(t, s)
	p.c.Write([]byte("\x00\xffnot json\n"))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "not a request") {
		t.Fatalf("Serve returned %v", err)
	}
	if _, err := p.read(); err == nil {
		t.Fatal("the channel is still open after garbage")
	}
}

func TestUnknownMethodIsAnsweredWithAnError(t *testing.T) {
	s, _ := start(t, echoHost{})
	p := greet(t, s)
	p.send(t, map[string]any{"id": "x", "method": "rm -rf", "params": 3})
	if m, _ := p.read(); m["id"] != "x" || !strings.Contains(fmt.Sprint(m["error"]), "unknown method") {
		t.Fatalf("got %v", m)
	}
}

func TestSilentPeerDoesNotHoldServe(t *testing.T) {
	s, err := Listen(t.TempDir(), echoHost{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	silent := dial(t, s) // connects and says nothing
	p := greet(t, s)
	// The peer is in: the silent one is let go at once, not at the end of
	// its hello timeout, and the channel answers.
	if m, err := silent.read(); err == nil {
		t.Fatalf("the silent connection got %v instead of being closed", m)
	}
	p.send(t, map[string]any{"id": 1, "method": "system"})
	if m, err := p.read(); err != nil || m["id"] != float64(1) {
		t.Fatalf("system after a silent connection: %v %v", m, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve after cancel: %v", err)
	}
}

func TestThousandConcurrentRequests(t *testing.T) {
	s, _ := start(t, echoHost{})
	p := greet(t, s)
	const n = 1000
	go func() {
		for i := range n {
			p.send(t, map[string]any{"id": i, "method": "tool_call", "params": map[string]any{"toolCallId": fmt.Sprint(i), "toolName": "block"}})
		}
	}()
	seen := map[string]bool{}
	for range n {
		m, err := p.read()
		if err != nil {
			t.Fatal(err)
		}
		r := m["result"].(map[string]any)
		if fmt.Sprint(m["id"]) != r["reason"] || r["block"] != true {
			t.Fatalf("answer %v does not match its request", m)
		}
		seen[r["reason"].(string)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct answers, want %d", len(seen), n)
	}
}

func TestCloseEndsServe(t *testing.T) {
	s, done := start(t, echoHost{})
	p := greet(t, s)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.read() }()
	s.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve after Close: %v", err)
	}
	wg.Wait()
}

func BenchmarkToolCallRoundTrip(b *testing.B) {
	root := benchProject(b)
	h := NewDecisions(Deps{Root: root, Permission: "full-auto", Preflight: folderChain{root: root, trusted: true}})
	s, _ := start(b, h)
	p := greet(b, s)
	took := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		p.send(b, map[string]any{"id": i, "method": "tool_call", "params": map[string]any{"toolCallId": fmt.Sprint(i), "toolName": "read", "input": map[string]any{"path": "sub/file.txt"}}})
		if _, err := p.read(); err != nil {
			b.Fatal(err)
		}
		took[i] = time.Since(t0)
	}
	b.StopTimer()
	// The goal is a median (p50 ≤ 2 ms per file tool): say it
	// beside the mean.
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

func benchProject(b *testing.B) string {
	root := b.TempDir()
	for p, text := range map[string]string{"AGENTS.md": "r\n", "sub/AGENTS.md": "n\n", "sub/file.txt": "f\n"} {
		os.MkdirAll(root+"/sub", 0o755)
		os.WriteFile(root+"/"+p, []byte(text), 0o644)
	}
	return root
}

package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// stream writes SSE to a test response, flushing after each event.
type stream struct {
	w http.ResponseWriter
}

func newStream(w http.ResponseWriter) stream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return stream{w}
}

func (s stream) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s stream) data(v string) {
	fmt.Fprintf(s.w, "data: %s\n\n", v)
	s.flush()
}

func (s stream) event(name, v string) {
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, v)
	s.flush()
}

func (s stream) raw(v string) {
	io.WriteString(s.w, v)
	s.flush()
}

// captured is one request the test server received.
type captured struct {
	path   string
	header http.Header
	body   map[string]any
}

// server runs handler for each request and records the requests.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []captured
	stop chan struct{} // closed at cleanup; blocked handlers return
}

func newServer(t *testing.T, handler func(n int, s *server, w http.ResponseWriter, r *http.Request)) *server {
	t.Helper()
	s := &server{stop: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		s.mu.Lock()
		s.reqs = append(s.reqs, captured{path: r.URL.Path, header: r.Header.Clone(), body: body})
		n := len(s.reqs)
		s.mu.Unlock()
		handler(n, s, w, r)
	}))
	t.Cleanup(func() {
		close(s.stop)
		s.Close()
	})
	return s
}

func (s *server) requests() []captured {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]captured(nil), s.reqs...)
}

// block waits until the client goes away or the test ends.
func (s *server) block(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.stop:
	}
}

// sleeps records the waits between attempts instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func testOpts(sl *sleeps) Options {
	o := Options{Backoff: time.Millisecond, MaxRetries: 3}
	if sl != nil {
		o.sleep = sl.sleep
	}
	return o
}

func newClient(t *testing.T, api, baseURL string, opts Options) Client {
	t.Helper()
	p := pisettings.ProviderConfig{Name: "test", API: api, BaseURL: baseURL, APIKey: "TEST_KEY",
		Headers: map[string]string{"X-Extra": "yes"},
		Models:  []pisettings.ModelConfig{{ID: "m1", Name: "Model One", MaxTokens: 1234}}}
	env := func(k string) string {
		if k == "TEST_KEY" {
			return "sk-test"
		}
		return ""
	}
	c, err := New(p, env, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// collect runs one call and returns its events.
func collect(t *testing.T, ctx context.Context, c Client, req Request) ([]Event, Result, error) {
	t.Helper()
	var evs []Event
	res, err := c.Stream(ctx, req, func(e Event) { evs = append(evs, e) })
	return evs, res, err
}

func wantKind(t *testing.T, err error, kind ErrorKind) *Error {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if pe.Kind != kind {
		t.Fatalf("kind = %d, want %d; error: %v", pe.Kind, kind, err)
	}
	return pe
}

// jsonEqual compares a decoded JSON value with a JSON text.
func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON for %s: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s:\n got  %s\n want %s", what, g, want)
	}
}

func textOf(m Message) string {
	s := ""
	for _, p := range m.Parts {
		if p.Type == PartText {
			s += p.Text
		}
	}
	return s
}

// conversation is a request with every kind of part.
func conversation() Request {
	return Request{
		Model: "m1", System: "be brief", MaxTokens: 100,
		Messages: []Message{
			{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "hi"}}},
			{Role: RoleAssistant, Parts: []Part{
				{Type: PartThinking, Text: "hmm", Signature: "sig1"},
				{Type: PartText, Text: "let me look"},
				{Type: PartToolCall, ToolCallID: "call_1", ToolName: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
				{Type: PartToolCall, ToolCallID: "call_2", ToolName: "ls"},
			}},
			{Role: RoleTool, Parts: []Part{
				{Type: PartToolResult, ToolCallID: "call_1", ToolName: "read", Text: "package a"},
				{Type: PartToolResult, ToolCallID: "call_2", ToolName: "ls", Text: "boom", IsError: true},
			}},
		},
		Tools: []Tool{{Name: "read", Description: "Read a file",
			Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
}

func simpleRequest() Request {
	return Request{Model: "m1", Messages: []Message{{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "hi"}}}}}
}

func settingsProvider(api, base string) pisettings.ProviderConfig {
	return pisettings.ProviderConfig{Name: "p", API: api, BaseURL: base}
}

// manualTimer stands in for the stream watchdog's timer: it fires only
// when the test calls fire, so a timeout test waits on events (the request
// arrived, a chunk was read) instead of racing a short deadline on a busy
// machine.
type manualTimer struct {
	mu     sync.Mutex
	f      func()
	resets chan time.Duration // every Reset, in order: the client read a chunk
}

func newManualTimer(opts *Options) *manualTimer {
	mt := &manualTimer{resets: make(chan time.Duration, 1024)}
	opts.afterFunc = func(_ time.Duration, f func()) timer {
		mt.mu.Lock()
		mt.f = f
		mt.mu.Unlock()
		return mt
	}
	return mt
}

func (m *manualTimer) Reset(d time.Duration) bool {
	select {
	case m.resets <- d:
	default:
	}
	return true
}

func (m *manualTimer) Stop() bool { return true }

func (m *manualTimer) fire() {
	m.mu.Lock()
	f := m.f
	m.mu.Unlock()
	f()
}

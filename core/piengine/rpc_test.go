package piengine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// pipePi is an in-process pi: it answers every command, out of order in
// pairs, and writes the records a test gives it.
type pipePi struct {
	toClient *io.PipeWriter
	mu       sync.Mutex
}

func newPipeClient(t testing.TB, handle func(*Record)) (*client, *pipePi, func()) {
	cr, pw := io.Pipe() // pi's stdout
	pr, cw := io.Pipe() // pi's stdin
	p := &pipePi{toClient: pw}
	go func() {
		in := bufio.NewReader(pr)
		var held []map[string]any
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			var c map[string]any
			json.Unmarshal(line, &c)
			held = append(held, c)
			if len(held) == 2 || c["type"] == "bad" {
				for i := len(held) - 1; i >= 0; i-- { // reversed
					p.write(map[string]any{"type": "response", "id": held[i]["id"], "command": held[i]["type"], "success": held[i]["type"] != "bad",
						"error": "no such thing", "data": map[string]any{"echo": held[i]["n"]}})
				}
				held = nil
			}
		}
	}()
	end := make(chan struct{})
	c := newClient(cr, cw, 1<<10, handle, func() error { close(end); return ErrExited })
	return c, p, func() { pw.Close(); <-end }
}

func (p *pipePi) write(v any) {
	b, _ := json.Marshal(v)
	p.line(string(b))
}

func (p *pipePi) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.toClient.Write([]byte(s + "\n"))
}

// Concurrent calls each get their own response, however pi orders them;
// pi's end fails the pending ones at once.
func TestClientCorrelatesConcurrentCalls(t *testing.T) {
	c, _, stop := newPipeClient(t, func(*Record) {})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data, err := c.Call(context.Background(), "get_state", map[string]int{"n": i})
			if err != nil {
				t.Error(err)
				return
			}
			if want := fmt.Sprintf(`{"echo":%d}`, i); string(data) != want {
				t.Errorf("call %d got %s", i, data)
			}
		}()
	}
	wg.Wait()
	_, err := c.Call(context.Background(), "bad", nil)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Message != "no such thing" {
		t.Errorf("refused: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := c.Call(context.Background(), "lonely", nil); done <- err }() // held: never answered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Call(ctx, "x", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	stop()
	if err := <-done; !errors.Is(err, ErrExited) {
		t.Errorf("pending call after the end: %v", err)
	}
	if _, err := c.Call(context.Background(), "later", nil); !errors.Is(err, ErrExited) {
		t.Errorf("call after the end: %v", err)
	}
}

// Records split on LF only: CRLF is accepted, U+2028 inside a string is
// not a boundary, a long line is skipped and reported, garbage reported,
// and the order is kept.
func TestClientFraming(t *testing.T) {
	var mu sync.Mutex
	var got []string
	seen := make(chan struct{}, 16)
	c, p, stop := newPipeClient(t, func(r *Record) {
		mu.Lock()
		if r.Type == recProtocol {
			got = append(got, "error:"+r.Error)
		} else {
			got = append(got, r.Type+":"+r.AssistantMessageEvent.Delta)
		}
		mu.Unlock()
		seen <- struct{}{}
	})
	defer stop()
	_ = c
	p.line(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"a` + "\u2028" + `b"}}` + "\r")
	p.line(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"` + strings.Repeat("x", 5000) + `"}}`)
	p.line(`not json`)
	p.line(`{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"end"}}`)
	for range 4 {
		<-seen
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 || got[0] != "message_update:a\u2028b" || !strings.Contains(got[1], "over the 1024-byte limit") ||
		!strings.Contains(got[2], `not a record: "not json"`) || got[3] != "message_update:end" {
		t.Errorf("records = %q", got)
	}
}

func FuzzClientLines(f *testing.F) {
	f.Add([]byte("{\"type\":\"agent_start\"}\n{\"type\":\"response\",\"id\":\"pt1\",\"success\":true}\r\n\n{bad\n"))
	f.Add([]byte(strings.Repeat("y", 3000) + "\n{\"type\":\"x\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		done := make(chan struct{})
		c := newClient(strings.NewReader(string(b)), io.Discard, 1<<10, func(*Record) {}, func() error { close(done); return ErrExited })
		<-done
		_ = c
	})
}

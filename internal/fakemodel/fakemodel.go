// Package fakemodel is a scripted model server for tests: an httptest
// server that speaks OpenAI Chat Completions and Anthropic Messages over
// SSE, answers each request with what a script decides, and records the
// requests so tests can check what the model was sent.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Call is a tool call the fake model makes.
type Call struct {
	ID   string
	Name string
	Args any // marshalled to the arguments JSON
}

// Reply is one scripted answer: text, tool calls, or both. Hold, when set,
// is waited on after the first text chunk (to test aborts mid-stream).
type Reply struct {
	Text   string
	Calls  []Call
	Status int // non-zero: answer with this HTTP status and no stream
	Hold   <-chan struct{}
}

// Request is a recorded request, decoded loosely.
type Request struct {
	Path   string
	Body   map[string]any
	System string // the system prompt, for both wire formats
	// LastToolResult is the content of the last tool result sent, if the
	// request ends with tool results.
	LastToolResult string
	// LastUser is the text of the last user message.
	LastUser string
	Raw      string
}

// Script decides the reply to the n-th request (0-based).
type Script func(n int, req Request) Reply

// Server is a running fake model.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
	script   Script
}

// New starts a server; it is closed when the test ends.
func New(t testing.TB, script Script) *Server {
	s := &Server{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ModelsJSON is a models.json declaring this server as provider "fake"
// with model "m1" for the given api, keyed by FAKE_API_KEY.
func (s *Server) ModelsJSON(api string) string {
	return fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":%q,"apiKey":"FAKE_API_KEY","models":[{"id":"m1","name":"Fake","contextWindow":200000,"maxTokens":4096}]}}}`,
		s.URL, api)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	raw := new(strings.Builder)
	dec := json.NewDecoder(r.Body)
	var rawMsg json.RawMessage
	if err := dec.Decode(&rawMsg); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	raw.Write(rawMsg)
	json.Unmarshal(rawMsg, &body)
	req := Request{Path: r.URL.Path, Body: body, Raw: raw.String()}
	anthropic := strings.HasSuffix(r.URL.Path, "/messages")
	req.System, req.LastToolResult = extract(body, anthropic)
	req.LastUser = lastUser(body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	reply := s.script(n, req)
	if reply.Status != 0 {
		http.Error(w, `{"error":{"message":"scripted failure"}}`, reply.Status)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(event, data string) {
		if event != "" {
			fmt.Fprintf(w, "event: %s\n", event)
		}
		fmt.Fprintf(w, "data: %s\n\n", data)
		if fl != nil {
			fl.Flush()
		}
	}
	if anthropic {
		writeAnthropic(send, reply, r)
	} else {
		writeOpenAI(send, reply, r)
	}
}

func extract(body map[string]any, anthropic bool) (system, lastTool string) {
	msgs, _ := body["messages"].([]any)
	if anthropic {
		system, _ = body["system"].(string)
		if sys, ok := body["system"].([]any); ok {
			for _, b := range sys {
				if m, ok := b.(map[string]any); ok {
					t, _ := m["text"].(string)
					system += t
				}
			}
		}
		if len(msgs) > 0 {
			last, _ := msgs[len(msgs)-1].(map[string]any)
			if blocks, ok := last["content"].([]any); ok {
				for _, b := range blocks {
					m, _ := b.(map[string]any)
					if m["type"] == "tool_result" {
						lastTool = contentText(m["content"])
					}
				}
			}
		}
		return
	}
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		if i == 0 && mm["role"] == "system" {
			system = contentText(mm["content"])
		}
	}
	if len(msgs) > 0 {
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if last["role"] == "tool" {
			lastTool = contentText(last["content"])
		}
	}
	return
}

func lastUser(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != "user" {
			continue
		}
		if t := contentText(m["content"]); t != "" {
			return t
		}
	}
	return ""
}

func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, part := range c {
			if m, ok := part.(map[string]any); ok {
				t, _ := m["text"].(string)
				b.WriteString(t)
			}
		}
		return b.String()
	}
	return ""
}

func chunks(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 7)
		for n < len(s) && !utf8Start(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func writeOpenAI(send func(string, string), reply Reply, r *http.Request) {
	for i, c := range chunks(reply.Text) {
		send("", mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": c}}}}))
		if i == 0 && reply.Hold != nil {
			select {
			case <-reply.Hold:
			case <-r.Context().Done():
				return
			}
		}
	}
	for i, c := range reply.Calls {
		args := mustJSON(c.Args)
		half := len(args) / 2
		send("", mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{
			map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": args[:half]}}}}}}}))
		send("", mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{
			map[string]any{"index": i, "function": map[string]any{"arguments": args[half:]}}}}}}}))
	}
	finish := "stop"
	if len(reply.Calls) > 0 {
		finish = "tool_calls"
	}
	send("", mustJSON(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}}))
	send("", `{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`)
	send("", "[DONE]")
}

func writeAnthropic(send func(string, string), reply Reply, r *http.Request) {
	send("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":100,"output_tokens":1}}}`)
	idx := 0
	if reply.Text != "" {
		send("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}}))
		for i, c := range chunks(reply.Text) {
			send("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": c}}))
			if i == 0 && reply.Hold != nil {
				select {
				case <-reply.Hold:
				case <-r.Context().Done():
					return
				}
			}
		}
		send("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": idx}))
		idx++
	}
	for _, c := range reply.Calls {
		args := mustJSON(c.Args)
		send("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}}))
		half := len(args) / 2
		send("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": args[:half]}}))
		send("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": args[half:]}}))
		send("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": idx}))
		idx++
	}
	stop := "end_turn"
	if len(reply.Calls) > 0 {
		stop = "tool_use"
	}
	send("message_delta", mustJSON(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 20}}))
	send("message_stop", `{"type":"message_stop"}`)
}

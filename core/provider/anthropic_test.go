package provider

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestAnthropicText(t *testing.T) {
	for _, suffix := range []string{"", "/v1", "/v1/"} {
		srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
			s := newStream(w)
			s.event("message_start", `{"type":"message_start","message":{"id":"msg_1","role":"assistant","content":[],"usage":{"input_tokens":25,"output_tokens":1,"cache_read_input_tokens":5,"cache_creation_input_tokens":3}}}`)
			s.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			s.event("ping", `{"type": "ping"}`)
			s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`)
			s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" world"}}`)
			s.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
			s.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`)
			s.event("message_stop", `{"type":"message_stop"}`)
		})
		c := newClient(t, APIAnthropicMessages, srv.URL+suffix, testOpts(nil))
		evs, res, err := collect(t, context.Background(), c, simpleRequest())
		if err != nil {
			t.Fatal(err)
		}
		var text []string
		for _, e := range evs {
			if e.Type == EventTextDelta {
				text = append(text, e.Text)
			}
		}
		if strings.Join(text, "|") != "Hello| world" || evs[0].Type != EventUsage || evs[len(evs)-1].Type != EventUsage {
			t.Fatalf("events = %+v", evs)
		}
		want := Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 5, CacheWriteTokens: 3}
		if res.Usage != want || textOf(res.Message) != "Hello world" || res.StopReason != StopEnd || res.Partial {
			t.Errorf("result = %+v", res)
		}
		req := srv.requests()[0]
		if req.path != "/v1/messages" {
			t.Errorf("baseURL %q: path = %s", suffix, req.path)
		}
		h := req.header
		if h.Get("x-api-key") != "sk-test" || h.Get("anthropic-version") != "2023-06-01" ||
			!strings.HasPrefix(h.Get("content-type"), "application/json") || h.Get("Authorization") != "" || h.Get("X-Extra") != "yes" {
			t.Errorf("headers = %v", h)
		}
		jsonEqual(t, "max_tokens from the model", req.body["max_tokens"], `1234`)
		jsonEqual(t, "stream", req.body["stream"], `true`)
	}
}

func TestAnthropicRequestBody(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`)
		s.event("message_stop", `{"type":"message_stop"}`)
	})
	c := newClient(t, APIAnthropicMessages, srv.URL, testOpts(nil))
	if _, _, err := collect(t, context.Background(), c, conversation()); err != nil {
		t.Fatal(err)
	}
	req := conversation()
	req.Model, req.MaxTokens = "unlisted", 0
	if _, _, err := collect(t, context.Background(), c, req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	b := reqs[0].body
	jsonEqual(t, "system", b["system"], `"be brief"`)
	jsonEqual(t, "max_tokens", b["max_tokens"], `100`)
	jsonEqual(t, "messages", b["messages"], `[
		{"role":"user","content":[{"type":"text","text":"hi"}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"hmm","signature":"sig1"},
			{"type":"text","text":"let me look"},
			{"type":"tool_use","id":"call_1","name":"read","input":{"path":"a.go"}},
			{"type":"tool_use","id":"call_2","name":"ls","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"call_1","content":"package a"},
			{"type":"tool_result","tool_use_id":"call_2","content":"boom","is_error":true}]}]`)
	jsonEqual(t, "tools", b["tools"], `[{"name":"read","description":"Read a file",
		"input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`)
	jsonEqual(t, "default max_tokens", reqs[1].body["max_tokens"], `8192`)
}

func TestAnthropicToolUse(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.event("message_start", `{"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}`)
		s.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Reading."}}`)
		s.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		s.event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`)
		for _, p := range []string{``, `{\"pa`, `th\": \"a`, `.go\"}`} {
			s.event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"`+p+`"}}`)
		}
		s.event("content_block_stop", `{"type":"content_block_stop","index":1}`)
		s.event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"ls","input":{}}}`)
		s.event("content_block_stop", `{"type":"content_block_stop","index":2}`)
		s.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":30}}`)
		s.event("message_stop", `{"type":"message_stop"}`)
	})
	c := newClient(t, APIAnthropicMessages, srv.URL, testOpts(nil))
	evs, res, err := collect(t, context.Background(), c, simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	var calls []*Part
	for _, e := range evs {
		if e.Type == EventToolCall {
			calls = append(calls, e.ToolCall)
		}
	}
	if len(calls) != 2 || calls[0].ToolCallID != "toolu_1" || calls[0].ToolName != "read" || string(calls[0].Arguments) != `{"path": "a.go"}` ||
		calls[1].ToolCallID != "toolu_2" || string(calls[1].Arguments) != `{}` {
		t.Fatalf("calls = %+v", calls)
	}
	if res.StopReason != StopToolUse || len(res.Message.Parts) != 3 || res.Message.Parts[1].Type != PartToolCall {
		t.Errorf("result = %+v", res)
	}
}

func TestAnthropicThinking(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`)
		s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}`)
		s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" think."}}`)
		s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAh"}}`)
		s.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		s.event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
		s.event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Done."}}`)
		s.event("content_block_stop", `{"type":"content_block_stop","index":1}`)
		s.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":9}}`)
		// No message_stop: the stop reason already arrived.
	})
	c := newClient(t, APIAnthropicMessages, srv.URL, testOpts(nil))
	evs, res, err := collect(t, context.Background(), c, simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Type != EventThinkingDelta || evs[0].Text != "Let me" || evs[2].Type != EventTextDelta {
		t.Fatalf("events = %+v", evs)
	}
	p := res.Message.Parts
	if len(p) != 2 || p[0].Type != PartThinking || p[0].Text != "Let me think." || p[0].Signature != "EqQBCgIYAh" ||
		p[1].Text != "Done." || res.StopReason != StopMaxTokens {
		t.Errorf("result = %+v", res)
	}
}

func TestAnthropicErrorEvent(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`)
		s.event("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	})
	c := newClient(t, APIAnthropicMessages, srv.URL, testOpts(nil))
	_, res, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrServer)
	if err.Error() != "test: the server failed (Overloaded); try again later" {
		t.Errorf("error = %q", err)
	}
	if !res.Partial || textOf(res.Message) != "Hi" {
		t.Errorf("result = %+v", res)
	}
}

func TestAnthropicMalformedJSON(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}`)
	})
	c := newClient(t, APIAnthropicMessages, srv.URL, testOpts(nil))
	_, _, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrOther)
}

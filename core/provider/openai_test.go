package provider

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestOpenAIText(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.raw(": keep-alive comment\n\n")
		s.data(`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`)
		s.data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`)
		s.data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}`)
		s.data(`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`)
		s.data(`{"id":"c1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":10}}}`)
		s.data(`[DONE]`)
	})
	c := newClient(t, APIOpenAICompletions, srv.URL+"/v1/", testOpts(nil))
	evs, res, err := collect(t, context.Background(), c, simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Type != EventTextDelta || evs[0].Text != "Hel" || evs[1].Text != "lo" || evs[2].Type != EventUsage {
		t.Fatalf("events = %+v", evs)
	}
	want := Usage{InputTokens: 2, OutputTokens: 2, CacheReadTokens: 10}
	if res.Usage != want || evs[2].Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	if textOf(res.Message) != "Hello" || res.Message.Role != RoleAssistant || res.StopReason != StopEnd || res.Partial {
		t.Errorf("result = %+v", res)
	}
	req := srv.requests()[0]
	if req.path != "/v1/chat/completions" {
		t.Errorf("path = %s", req.path)
	}
	if got := req.header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	if req.header.Get("X-Extra") != "yes" {
		t.Errorf("config header missing: %v", req.header)
	}
	jsonEqual(t, "stream", req.body["stream"], `true`)
	jsonEqual(t, "stream_options", req.body["stream_options"], `{"include_usage":true}`)
	jsonEqual(t, "model", req.body["model"], `"m1"`)
	if _, ok := req.body["max_tokens"]; ok {
		t.Errorf("max_tokens sent without a limit")
	}
}

func TestOpenAIRequestBody(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.data(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`)
		s.data(`[DONE]`)
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(nil))
	if _, _, err := collect(t, context.Background(), c, conversation()); err != nil {
		t.Fatal(err)
	}
	b := srv.requests()[0].body
	jsonEqual(t, "messages", b["messages"], `[
		{"role":"system","content":"be brief"},
		{"role":"user","content":"hi"},
		{"role":"assistant","content":"let me look","tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a.go\"}"}},
			{"id":"call_2","type":"function","function":{"name":"ls","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"package a"},
		{"role":"tool","tool_call_id":"call_2","content":"boom"}]`)
	jsonEqual(t, "tools", b["tools"], `[{"type":"function","function":{"name":"read","description":"Read a file",
		"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`)
	jsonEqual(t, "max_tokens", b["max_tokens"], `100`)
}

func TestOpenAIToolCalls(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.data(`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Looking."}}]}`)
		s.data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]}}]}`)
		s.data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"ls","arguments":""}}]}}]}`)
		// Arguments of both calls interleaved, split mid-token.
		for _, d := range []struct{ i, a string }{{"0", `{\"pa`}, {"1", `{\"di`}, {"0", `th\": \"a`}, {"1", `r\": \".\"}`}, {"0", `.go\"}`}} {
			s.data(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + d.i + `,"function":{"arguments":"` + d.a + `"}}]}}]}`)
		}
		s.data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		s.data(`[DONE]`)
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(nil))
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
	if len(calls) != 2 {
		t.Fatalf("tool call events = %d, want 2 (%+v)", len(calls), evs)
	}
	if calls[0].ToolCallID != "call_a" || calls[0].ToolName != "read" || string(calls[0].Arguments) != `{"path": "a.go"}` {
		t.Errorf("call 0 = %+v (%s)", calls[0], calls[0].Arguments)
	}
	if calls[1].ToolCallID != "call_b" || calls[1].ToolName != "ls" || string(calls[1].Arguments) != `{"dir": "."}` {
		t.Errorf("call 1 = %+v (%s)", calls[1], calls[1].Arguments)
	}
	if res.StopReason != StopToolUse || len(res.Message.Parts) != 3 || res.Message.Parts[0].Text != "Looking." ||
		res.Message.Parts[2].ToolCallID != "call_b" {
		t.Errorf("result = %+v", res)
	}
}

func TestOpenAIReasoning(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.data(`{"choices":[{"index":0,"delta":{"reasoning_content":"think "}}]}`)
		s.data(`{"choices":[{"index":0,"delta":{"reasoning":"more"}}]}`)
		s.data(`{"choices":[{"index":0,"delta":{"content":"answer"}}]}`)
		s.data(`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`)
		// No [DONE]: a finished answer is complete without it.
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(nil))
	evs, res, err := collect(t, context.Background(), c, simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].Type != EventThinkingDelta || evs[1].Type != EventThinkingDelta || evs[2].Type != EventTextDelta {
		t.Fatalf("events = %+v", evs)
	}
	p := res.Message.Parts
	if len(p) != 2 || p[0].Type != PartThinking || p[0].Text != "think more" || p[1].Text != "answer" || res.StopReason != StopMaxTokens {
		t.Errorf("result = %+v", res)
	}
}

func TestOpenAIStreamErrorObject(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.data(`{"choices":[{"index":0,"delta":{"content":"par"}}]}`)
		s.data(`{"error":{"message":"Upstream\nprovider failed","code":502}}`)
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(nil))
	_, res, err := collect(t, context.Background(), c, simpleRequest())
	pe := wantKind(t, err, ErrServer)
	if !strings.Contains(err.Error(), "Upstream provider failed") || pe.Provider != "test" {
		t.Errorf("error = %v", err)
	}
	if !res.Partial || textOf(res.Message) != "par" || res.StopReason != StopError {
		t.Errorf("result = %+v", res)
	}
}

func TestOpenAIMalformedJSON(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		s.data(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`)
		s.data(`{"choices":[{"index":0,"delta":{"content":`)
		s.data(`[DONE]`)
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(nil))
	_, res, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrOther)
	if !strings.Contains(err.Error(), "invalid JSON") || !res.Partial || textOf(res.Message) != "a" {
		t.Errorf("err = %v, result = %+v", err, res)
	}
}

func TestOpenAIMaxCompletionTokens(t *testing.T) {
	c, err := New(settingsProvider(APIOpenAICompletions, "https://api.openai.com/v1"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := c.(*openAIClient).body(Request{Model: "gpt-5", MaxTokens: 50})
	if err != nil || !strings.Contains(string(body), `"max_completion_tokens":50`) || strings.Contains(string(body), `"max_tokens"`) {
		t.Errorf("body = %s, %v", body, err)
	}
}

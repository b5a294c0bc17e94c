package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestGeminiTextAndThinking: thought parts stream as thinking, text as
// text, usage counts thoughts as output and cached tokens apart; the
// request goes to streamGenerateContent with alt=sse and the key in a
// header.
func TestGeminiTextAndThinking(t *testing.T) {
	var rawQuery string
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		rawQuery = r.URL.RawQuery
		s := newStream(w)
		s.raw("data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Let me think\",\"thought\":true}]},\"index\":0}]}\r\n\r\n")
		s.data(`{"candidates":[{"content":{"role":"model","parts":[{"text":" harder.","thought":true}]},"index":0}]}`)
		s.data(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"index":0}],"usageMetadata":{"promptTokenCount":10}}`)
		s.data(`{"candidates":[{"content":{"role":"model","parts":[{"text":" world"}]},"finishReason":"STOP","index":0}],` +
			`"usageMetadata":{"promptTokenCount":30,"cachedContentTokenCount":20,"candidatesTokenCount":5,"thoughtsTokenCount":7,"totalTokenCount":42}}`)
	})
	c := newClient(t, APIGoogleGenerativeAI, srv.URL+"/v1beta", testOpts(nil))
	evs, res, err := collect(t, context.Background(), c, conversation())
	if err != nil {
		t.Fatal(err)
	}
	var thinking, text string
	for _, e := range evs {
		switch e.Type {
		case EventThinkingDelta:
			thinking += e.Text
		case EventTextDelta:
			text += e.Text
		}
	}
	if thinking != "Let me think harder." || text != "Hello world" || res.StopReason != StopEnd || res.Partial {
		t.Fatalf("thinking %q, text %q, result %+v", thinking, text, res)
	}
	if p := res.Message.Parts; len(p) != 2 || p[0].Type != PartThinking || p[1].Type != PartText {
		t.Errorf("parts = %+v", p)
	}
	if want := (Usage{InputTokens: 10, OutputTokens: 12, CacheReadTokens: 20}); res.Usage != want {
		t.Errorf("usage = %+v", res.Usage)
	}
	req := srv.requests()[0]
	if req.path != "/v1beta/models/m1:streamGenerateContent" || rawQuery != "alt=sse" {
		t.Errorf("path %s?%s", req.path, rawQuery)
	}
	if req.header.Get("x-goog-api-key") != "sk-test" || req.header.Get("Authorization") != "" || req.header.Get("X-Extra") != "yes" {
		t.Errorf("headers = %v", req.header)
	}
	b := req.body
	jsonEqual(t, "systemInstruction", b["systemInstruction"], `{"parts":[{"text":"be brief"}]}`)
	jsonEqual(t, "contents", b["contents"], `[
		{"role":"user","parts":[{"text":"hi"}]},
		{"role":"model","parts":[
			{"text":"let me look"},
			{"functionCall":{"name":"read","args":{"path":"a.go"}}},
			{"functionCall":{"name":"ls","args":{}}}]},
		{"role":"user","parts":[
			{"functionResponse":{"name":"read","response":{"output":"package a"}}},
			{"functionResponse":{"name":"ls","response":{"error":"boom"}}}]}]`)
	jsonEqual(t, "tools", b["tools"], `[{"functionDeclarations":[{"name":"read","description":"Read a file",
		"parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}]`)
	jsonEqual(t, "generationConfig", b["generationConfig"], `{"maxOutputTokens":100}`)
}

// TestGeminiToolCalls: functionCall parts become complete tool calls (ids
// made up when Gemini sends none), their thought signatures go back with
// them, and a Gemini 3 call from another provider gets the skip marker.
func TestGeminiToolCalls(t *testing.T) {
	srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		if n == 1 {
			s.data(`{"candidates":[{"content":{"role":"model","parts":[{"text":"Reading."},` +
				`{"functionCall":{"name":"read","args":{"path":"a.go"}},"thoughtSignature":"c2lnLTE="},` +
				`{"functionCall":{"id":"fc-2","name":"ls","args":{}}}]},"finishReason":"STOP","index":0}]}`)
			return
		}
		writeOK(APIGoogleGenerativeAI, w)
	})
	c := newClient(t, APIGoogleGenerativeAI, srv.URL, testOpts(nil))
	var calls []*Part
	res, err := c.Stream(context.Background(), Request{Model: "gemini-3.5-flash", Messages: simpleRequest().Messages}, func(e Event) {
		if e.Type == EventToolCall {
			calls = append(calls, e.ToolCall)
		}
	})
	if err != nil || res.StopReason != StopToolUse || len(calls) != 2 {
		t.Fatalf("%v, %+v, %d calls", err, res, len(calls))
	}
	if calls[0].ToolName != "read" || string(calls[0].Arguments) != `{"path":"a.go"}` || !strings.HasPrefix(calls[0].ToolCallID, "call_") || calls[1].ToolCallID != "fc-2" {
		t.Errorf("calls = %+v %+v", calls[0], calls[1])
	}
	// Send the calls back with their results, plus a call made by another
	// provider.
	msgs := append(simpleRequest().Messages, res.Message,
		Message{Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: calls[0].ToolCallID, ToolName: "read", Text: "package a"},
			{Type: PartToolResult, ToolCallID: "fc-2", ToolName: "ls", Text: "a.go"}}},
		Message{Role: RoleAssistant, Parts: []Part{{Type: PartThinking, Text: "from claude", Signature: "anthropic-sig"},
			{Type: PartToolCall, ToolCallID: "toolu_1", ToolName: "ls", Arguments: json.RawMessage(`{}`)}}},
		Message{Role: RoleTool, Parts: []Part{{Type: PartToolResult, ToolCallID: "toolu_1", ToolName: "ls", Text: "b.go"}}})
	if _, _, err := collect(t, context.Background(), c, Request{Model: "gemini-3.5-flash", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "contents", srv.requests()[1].body["contents"], `[
		{"role":"user","parts":[{"text":"hi"}]},
		{"role":"model","parts":[{"text":"Reading."},
			{"functionCall":{"name":"read","args":{"path":"a.go"}},"thoughtSignature":"c2lnLTE="},
			{"functionCall":{"name":"ls","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},
		{"role":"user","parts":[
			{"functionResponse":{"name":"read","response":{"output":"package a"}}},
			{"functionResponse":{"name":"ls","response":{"output":"a.go"}}}]},
		{"role":"model","parts":[{"functionCall":{"name":"ls","args":{}},"thoughtSignature":"skip_thought_signature_validator"}]},
		{"role":"user","parts":[{"functionResponse":{"name":"ls","response":{"output":"b.go"}}}]}]`)
}

// TestGeminiStops: MAX_TOKENS is a cut answer; SAFETY and friends end the
// call with a sentence naming Gemini's reason; a blocked prompt and an
// error object in the stream are errors of their kind.
func TestGeminiStops(t *testing.T) {
	cases := []struct {
		chunk string
		kind  ErrorKind
		want  string
	}{
		{`{"candidates":[{"content":{"parts":[{"text":"so"}]},"finishReason":"SAFETY","index":0}]}`, ErrOther, "the model stopped: SAFETY"},
		{`{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}`, ErrBadRequest, "the prompt was blocked (PROHIBITED_CONTENT)"},
		{`{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}`, ErrRateLimit, "Resource has been exhausted"},
		{`{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}`, ErrServer, "Internal error"},
	}
	for _, tc := range cases {
		srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { newStream(w).data(tc.chunk) })
		c := newClient(t, APIGoogleGenerativeAI, srv.URL, testOpts(&sleeps{}))
		_, res, err := collect(t, context.Background(), c, simpleRequest())
		wantKind(t, err, tc.kind)
		if !strings.Contains(err.Error(), tc.want) || res.StopReason != StopError {
			t.Errorf("%s: %v, %+v", tc.chunk, err, res)
		}
	}
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		newStream(w).data(`{"candidates":[{"content":{"parts":[{"text":"cut"}]},"finishReason":"MAX_TOKENS","index":0}]}`)
	})
	_, res, err := collect(t, context.Background(), newClient(t, APIGoogleGenerativeAI, srv.URL, testOpts(nil)), simpleRequest())
	if err != nil || res.StopReason != StopMaxTokens || textOf(res.Message) != "cut" {
		t.Errorf("MAX_TOKENS: %v, %+v", err, res)
	}
}

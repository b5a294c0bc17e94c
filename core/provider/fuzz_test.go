package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

func FuzzSSE(f *testing.F) {
	f.Add([]byte("event: a\ndata: one\ndata: two\n\n"), "msg", "line1\nline2")
	f.Add([]byte(": c\r\ndata:x\r\rdata\n\nid: 1\nretry: x\ndata: [DONE]\n"), "", "")
	f.Add([]byte("\xef\xbb\xbfdata: bom\n\n\r\n"), "e", ":colon")
	f.Fuzz(func(t *testing.T, raw []byte, name, data string) {
		// Arbitrary input never panics and parses the same with any CR/LF
		// choice and any read sizes.
		want, err1 := parseAll(bytes.NewReader(raw), 1<<16)
		got, err2 := parseAll(oneByte{bytes.NewReader(raw)}, 1<<16)
		if (err1 == nil) != (err2 == nil) || len(want) != len(got) {
			t.Fatalf("chunked read differs: %q %v vs %q %v", want, err1, got, err2)
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("chunked read differs at %d: %q vs %q", i, want[i], got[i])
			}
		}
		if !bytes.ContainsRune(raw, '\r') && err1 == nil {
			crlf, err := parseAll(bytes.NewReader(bytes.ReplaceAll(raw, []byte("\n"), []byte("\r\n"))), 1<<17)
			if err != nil || len(crlf) != len(want) {
				t.Fatalf("CRLF differs: %q vs %q (%v)", crlf, want, err)
			}
			for i := range want {
				if want[i] != crlf[i] {
					t.Fatalf("CRLF differs at %d: %q vs %q", i, crlf[i], want[i])
				}
			}
		}
		// A written event reads back unchanged.
		name = strings.NewReplacer("\r", "", "\n", "").Replace(name)
		data = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(data)
		var b strings.Builder
		b.WriteString("event: " + name + "\n")
		for _, l := range strings.Split(data, "\n") {
			b.WriteString("data: " + l + "\n")
		}
		b.WriteString("\n")
		evs, err := parseAll(strings.NewReader(b.String()), 0)
		if err != nil || len(evs) != 1 || evs[0].typ != name || evs[0].data != data {
			t.Fatalf("round trip of %q %q: %q, %v", name, data, evs, err)
		}
	})
}

// bodyTransport answers every request with one fixed stream body.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(b.body)), Request: r}, nil
}

func fuzzStream(t *testing.T, api string, body []byte) {
	p := pisettings.ProviderConfig{Name: "fuzz", API: api, BaseURL: "http://fuzz.invalid", APIKey: "k"}
	c, err := New(p, func(string) string { return "" }, Options{HTTPClient: &http.Client{Transport: bodyTransport{body}}, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	res, err := c.Stream(context.Background(), conversation(), func(e Event) {
		n++
		if e.Type == EventToolCall && (e.ToolCall == nil || !jsonOK(e.ToolCall.Arguments)) {
			t.Fatalf("bad tool call event %+v", e)
		}
	})
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("error %v is not an *Error", err)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("error is not one line: %q", err)
		}
		if res.StopReason != StopError {
			t.Fatalf("failed call with stop reason %q", res.StopReason)
		}
	} else if res.Partial || res.StopReason == StopError || res.StopReason == "" {
		t.Fatalf("good call with result %+v", res)
	}
	for _, p := range res.Message.Parts {
		if p.Type == PartToolCall && !jsonOK(p.Arguments) {
			t.Fatalf("tool call arguments are not JSON: %q", p.Arguments)
		}
	}
}

func jsonOK(b []byte) bool { return len(b) > 0 && isJSON(b) }

func FuzzOpenAIStream(f *testing.F) {
	f.Add([]byte(openAIStream(3)))
	f.Add([]byte(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x"}}]}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\":1}"}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"error\":{\"message\":\"x\",\"code\":500}}\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"r\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1}}\n"))
	f.Fuzz(func(t *testing.T, body []byte) { fuzzStream(t, APIOpenAICompletions, body) })
}

func FuzzAnthropicStream(f *testing.F) {
	f.Add([]byte(anthropicStream))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":{\"a\":1}}}\n\n" +
		"data: {\"type\":\"message_stop\"}\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) { fuzzStream(t, APIAnthropicMessages, body) })
}

const anthropicStream = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"s\"}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"ls\",\"input\":{}}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"1}\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":7}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

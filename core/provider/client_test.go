package provider

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

var apis = []string{APIOpenAICompletions, APIAnthropicMessages, APIGoogleGenerativeAI}

// writeText streams one text delta in the api's format.
func writeText(api string, s stream, text string) {
	switch api {
	case APIOpenAICompletions:
		s.data(`{"choices":[{"index":0,"delta":{"content":"` + text + `"}}]}`)
		return
	case APIGoogleGenerativeAI:
		s.data(`{"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]},"index":0}]}`)
		return
	}
	s.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`+text+`"}}`)
}

// writeEnd ends an answer in the api's format.
func writeEnd(api string, s stream) {
	switch api {
	case APIOpenAICompletions:
		s.data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		s.data(`[DONE]`)
		return
	case APIGoogleGenerativeAI:
		s.data(`{"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}`)
		return
	}
	s.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`)
	s.event("message_stop", `{"type":"message_stop"}`)
}

func writeOK(api string, w http.ResponseWriter) {
	s := newStream(w)
	writeText(api, s, "ok")
	writeEnd(api, s)
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		status int
		body   string
		kind   ErrorKind
		want   []string
	}{
		{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, ErrAuth, []string{"rejected", "invalid x-api-key", "check TEST_KEY"}},
		{403, `{"error":{"message":"forbidden"}}`, ErrAuth, []string{"check TEST_KEY"}},
		{404, `{"error":"model 'm1' not found"}`, ErrNotFound, []string{"model 'm1' not found", `check the model id "m1" and the baseUrl`}},
		{400, `{"error":{"message":"messages: text content blocks must be non-empty","type":"invalid_request_error"}}`, ErrBadRequest, []string{"refused", "text content blocks must be non-empty"}},
		{400, "<html>\n<body>bad</body></html>", ErrBadRequest, []string{"HTTP 400"}},
		{418, "I'm a\nteapot", ErrOther, []string{"HTTP 418", "I'm a teapot"}},
	}
	for _, api := range apis {
		for _, tc := range cases {
			srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			})
			sl := &sleeps{}
			c := newClient(t, api, srv.URL, testOpts(sl))
			_, res, err := collect(t, context.Background(), c, simpleRequest())
			pe := wantKind(t, err, tc.kind)
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s %d: error %q lacks %q", api, tc.status, msg, w)
				}
			}
			if strings.ContainsAny(msg, "\n\r") || pe.Status != tc.status {
				t.Errorf("%s %d: error %q (status %d)", api, tc.status, msg, pe.Status)
			}
			if len(srv.requests()) != 1 || len(sl.d) != 0 || res.StopReason != StopError {
				t.Errorf("%s %d: %d requests, %d waits, result %+v", api, tc.status, len(srv.requests()), len(sl.d), res)
			}
		}
	}
}

func TestRetryAfter429(t *testing.T) {
	for _, api := range apis {
		srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			writeOK(api, w)
		})
		sl := &sleeps{}
		c := newClient(t, api, srv.URL, testOpts(sl))
		_, res, err := collect(t, context.Background(), c, simpleRequest())
		if err != nil || textOf(res.Message) != "ok" {
			t.Fatalf("%s: %v, %+v", api, err, res)
		}
		if len(sl.d) != 1 || sl.d[0] != 7*time.Second {
			t.Errorf("%s: waits = %v, want [7s]", api, sl.d)
		}
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":{"message":"daily quota exceeded"}}`))
	})
	sl := &sleeps{}
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(sl))
	_, _, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrRateLimit)
	if len(sl.d) != 0 || len(srv.requests()) != 1 || !strings.Contains(err.Error(), "daily quota exceeded") {
		t.Errorf("waits %v, requests %d, err %v", sl.d, len(srv.requests()), err)
	}
}

func TestRetry500ThenSuccess(t *testing.T) {
	for _, api := range apis {
		srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
			if n <= 2 {
				http.Error(w, "oops", http.StatusInternalServerError)
				return
			}
			writeOK(api, w)
		})
		sl := &sleeps{}
		c := newClient(t, api, srv.URL, testOpts(sl))
		_, res, err := collect(t, context.Background(), c, simpleRequest())
		if err != nil || textOf(res.Message) != "ok" || len(srv.requests()) != 3 {
			t.Fatalf("%s: %v, %+v, %d requests", api, err, res, len(srv.requests()))
		}
		if len(sl.d) != 2 || sl.d[0] != time.Millisecond || sl.d[1] != 2*time.Millisecond {
			t.Errorf("%s: waits = %v, want [1ms 2ms]", api, sl.d)
		}
	}
}

func TestRetry500Forever(t *testing.T) {
	srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"internal"}}`, http.StatusBadGateway)
	})
	sl := &sleeps{}
	c := newClient(t, APIAnthropicMessages, srv.URL, testOpts(sl))
	_, _, err := collect(t, context.Background(), c, simpleRequest())
	pe := wantKind(t, err, ErrServer)
	if pe.Status != 502 || len(srv.requests()) != 4 || len(sl.d) != 3 {
		t.Errorf("status %d, %d requests, waits %v", pe.Status, len(srv.requests()), sl.d)
	}
	if err.Error() != "test: the server failed (HTTP 502) (internal); try again later" {
		t.Errorf("error = %q", err)
	}
}

func TestBackoffDefaults(t *testing.T) {
	var o Options
	if o.retries() != 3 || o.wait(0) != time.Second || o.wait(1) != 2*time.Second || o.wait(10) != 30*time.Second {
		t.Errorf("defaults: %d retries, waits %v %v %v", o.retries(), o.wait(0), o.wait(1), o.wait(10))
	}
	if (Options{MaxRetries: -1}).retries() != 0 {
		t.Error("negative MaxRetries should disable retries")
	}
	if parseRetryAfter("1.5") != 1500*time.Millisecond || parseRetryAfter("soon") != 0 || parseRetryAfter("-3") != 0 {
		t.Error("parseRetryAfter")
	}
}

func TestCutOff(t *testing.T) {
	for _, api := range apis {
		srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
			s := newStream(w)
			writeText(api, s, "partial ")
			writeText(api, s, "answer")
		})
		sl := &sleeps{}
		c := newClient(t, api, srv.URL, testOpts(sl))
		_, res, err := collect(t, context.Background(), c, simpleRequest())
		wantKind(t, err, ErrCutOff)
		if !res.Partial || res.StopReason != StopError || textOf(res.Message) != "partial answer" {
			t.Errorf("%s: result = %+v", api, res)
		}
		if len(srv.requests()) != 1 {
			t.Errorf("%s: a stream that delivered data was retried", api)
		}
	}
}

func TestConnectionDropped(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		s := newStream(w)
		writeText(APIOpenAICompletions, s, "half")
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(&sleeps{}))
	_, res, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrCutOff)
	if textOf(res.Message) != "half" || !res.Partial {
		t.Errorf("result = %+v", res)
	}
}

func TestEmptyStreamRetried(t *testing.T) {
	srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			newStream(w).raw(": nothing\n\n")
			return
		}
		writeOK(APIOpenAICompletions, w)
	})
	sl := &sleeps{}
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(sl))
	_, res, err := collect(t, context.Background(), c, simpleRequest())
	if err != nil || textOf(res.Message) != "ok" || len(srv.requests()) != 2 {
		t.Fatalf("%v, %+v, %d requests", err, res, len(srv.requests()))
	}
}

func TestFirstByteTimeout(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := newServer(t, func(_ int, s *server, w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		s.block(r) // never answers
	})
	opts := testOpts(&sleeps{})
	opts.FirstByteTimeout = 20 * time.Millisecond
	mt := newManualTimer(&opts)
	// The deadline passes once the server holds the request, never before.
	go func() { <-arrived; mt.fire() }()
	c := newClient(t, APIAnthropicMessages, srv.URL, opts)
	_, res, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrTimeout)
	if res.StopReason != StopError || len(srv.requests()) != 1 || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("result %+v, %d requests, err %v", res, len(srv.requests()), err)
	}
}

func TestIdleTimeout(t *testing.T) {
	for _, api := range apis {
		srv := newServer(t, func(_ int, s *server, w http.ResponseWriter, r *http.Request) {
			st := newStream(w)
			writeText(api, st, "so far")
			s.block(r) // stalls
		})
		opts := testOpts(&sleeps{})
		opts.FirstByteTimeout, opts.IdleTimeout = time.Minute, 20*time.Millisecond
		mt := newManualTimer(&opts)
		// The stream stalls once the client has read what was sent: the
		// watchdog was re-armed with the idle timeout.
		go func() {
			for d := range mt.resets {
				if d == opts.IdleTimeout {
					mt.fire()
					return
				}
			}
		}()
		c := newClient(t, api, srv.URL, opts)
		_, res, err := collect(t, context.Background(), c, simpleRequest())
		wantKind(t, err, ErrTimeout)
		if !res.Partial || textOf(res.Message) != "so far" || res.StopReason != StopError {
			t.Errorf("%s: result = %+v", api, res)
		}
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, api := range apis {
		srv := newServer(t, func(_ int, s *server, w http.ResponseWriter, r *http.Request) {
			st := newStream(w)
			writeText(api, st, "begun")
			s.block(r)
		})
		c := newClient(t, api, srv.URL, testOpts(&sleeps{}))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := c.Stream(ctx, simpleRequest(), func(e Event) {
			if e.Type == EventTextDelta {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err = %v, want context.Canceled", api, err)
		}
		wantKind(t, err, ErrAborted)
		if res.StopReason != StopAborted || !res.Partial || textOf(res.Message) != "begun" {
			t.Errorf("%s: result = %+v", api, res)
		}
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := newServer(t, func(n int, _ *server, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithCancel(context.Background())
	opts := testOpts(nil)
	opts.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepCtx(ctx, time.Hour)
	}
	c := newClient(t, APIOpenAICompletions, srv.URL, opts)
	res, err := c.Stream(ctx, simpleRequest(), nil)
	if !errors.Is(err, context.Canceled) || res.StopReason != StopAborted || len(srv.requests()) != 1 {
		t.Errorf("err %v, result %+v, %d requests", err, res, len(srv.requests()))
	}
}

func TestNetworkError(t *testing.T) {
	srv := newServer(t, func(int, *server, http.ResponseWriter, *http.Request) {})
	url := srv.URL
	srv.Close()
	sl := &sleeps{}
	c := newClient(t, APIOpenAICompletions, url, testOpts(sl))
	_, _, err := collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrNetwork)
	if len(sl.d) != 3 || !strings.Contains(err.Error(), "check the baseUrl "+url+" and that the server runs") {
		t.Errorf("waits %v, err %v", sl.d, err)
	}
	// What failed, in words: the address that refused the connection.
	host := strings.TrimPrefix(url, "http://")
	if want := "cannot reach the server (connection to " + host + " refused)"; !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "dial tcp") {
		t.Errorf("err %q, want it to say %q", err, want)
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"error":"model is loading"}`))
	})
	c := newClient(t, APIOpenAICompletions, srv.URL, testOpts(&sleeps{}))
	_, _, err := collect(t, context.Background(), c, simpleRequest())
	if err == nil || !strings.Contains(err.Error(), "model is loading") {
		t.Errorf("err = %v", err)
	}
}

func TestMissingKey(t *testing.T) {
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { writeOK(APIOpenAICompletions, w) })
	p := pisettings.ProviderConfig{Name: "openai", API: APIOpenAICompletions, BaseURL: srv.URL, APIKey: "OPENAI_API_KEY"}
	c, err := New(p, func(string) string { return "" }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t, context.Background(), c, simpleRequest())
	wantKind(t, err, ErrAuth)
	if err.Error() != `openai: no API key is set (the apiKey of provider "openai" in models.json names OPENAI_API_KEY, which is not set); set OPENAI_API_KEY` {
		t.Errorf("error = %q", err)
	}
	if len(srv.requests()) != 0 {
		t.Error("a request was sent without a key")
	}
}

func TestNewKeysAndHeaders(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"MY_KEY": "from-env", "HDR": "hdr-env"}[k]
	}
	cases := []struct{ apiKey, auth string }{
		{"MY_KEY", "Bearer from-env"},
		{"sk-literal-123", "Bearer sk-literal-123"},
		{"", ""},
	}
	for _, tc := range cases {
		srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { writeOK(APIOpenAICompletions, w) })
		p := pisettings.ProviderConfig{Name: "x", API: APIOpenAICompletions, BaseURL: srv.URL, APIKey: tc.apiKey,
			Headers: map[string]string{"X-A": "HDR", "X-B": "plain"}}
		c, err := New(p, env, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := collect(t, context.Background(), c, simpleRequest()); err != nil {
			t.Fatal(err)
		}
		h := srv.requests()[0].header
		if h.Get("Authorization") != tc.auth || h.Get("X-A") != "hdr-env" || h.Get("X-B") != "plain" {
			t.Errorf("apiKey %q: headers %v", tc.apiKey, h)
		}
	}
	// A literal key rejected by the server: the hint names models.json.
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) })
	c, _ := New(pisettings.ProviderConfig{Name: "x", API: APIAnthropicMessages, BaseURL: srv.URL, APIKey: "literal-key"}, env, Options{})
	_, _, err := collect(t, context.Background(), c, simpleRequest())
	if !strings.Contains(err.Error(), `check the apiKey of provider "x" in models.json`) {
		t.Errorf("error = %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	_, err := New(pisettings.ProviderConfig{Name: "g", API: "openai-responses", BaseURL: "https://x"}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown api "openai-responses"`) {
		t.Errorf("unknown api: %v", err)
	}
	_, err = New(pisettings.ProviderConfig{Name: "g", API: APIOpenAICompletions, BaseURL: "localhost:11434"}, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "baseUrl") {
		t.Errorf("bad baseUrl: %v", err)
	}
}

func TestInvalidToolSchema(t *testing.T) {
	for _, api := range apis {
		c := newClient(t, api, "http://127.0.0.1:1", testOpts(&sleeps{}))
		req := simpleRequest()
		req.Tools = []Tool{{Name: "bad", Schema: []byte(`{`)}}
		_, _, err := collect(t, context.Background(), c, req)
		wantKind(t, err, ErrBadRequest)
	}
}

// A host name that does not exist is named as such.
func TestNetworkDetailNamesAMissingHost(t *testing.T) {
	err := &url.Error{Op: "Post", URL: "http://nosuch.invalid/v1", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "nosuch.invalid", IsNotFound: true}}}
	if got := networkDetail(err); got != "no host is named nosuch.invalid" {
		t.Errorf("networkDetail = %q", got)
	}
}

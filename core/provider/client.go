package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/settings"
)

// API names in models.json.
const (
	APIOpenAICompletions = "openai-completions"
	APIAnthropicMessages = "anthropic-messages"
)

// Options tune how a client talks HTTP. The zero value gives the defaults.
type Options struct {
	// HTTPClient sends the requests; nil is a client without an overall
	// timeout (answers stream for minutes; the timeouts below apply).
	HTTPClient *http.Client
	// MaxRetries is how many times a call is retried after a 429, a 5xx
	// or a connection failure, only before any answer arrived. 0 means 3;
	// a negative value disables retries.
	MaxRetries int
	// Backoff is the first wait between attempts, doubled each time (at
	// most 30 s). A Retry-After header replaces it. 0 means 1 s.
	Backoff time.Duration
	// FirstByteTimeout bounds the wait for the first byte of the answer;
	// IdleTimeout bounds each wait between later chunks. 0 means 120 s
	// and 90 s; a negative value disables the timeout.
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration

	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
	// afterFunc starts the first-byte and idle timer; tests replace it so
	// a timeout fires when the test says, not when a busy machine lets it.
	afterFunc func(d time.Duration, f func()) timer
}

// timer is the part of *time.Timer the stream watchdog uses.
type timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

func (o Options) startTimer(d time.Duration, f func()) timer {
	if o.afterFunc != nil {
		return o.afterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

const (
	defaultMaxRetries = 3
	defaultBackoff    = time.Second
	maxBackoff        = 30 * time.Second
	maxRetryAfter     = 60 * time.Second // a longer Retry-After fails at once
	defaultFirstByte  = 120 * time.Second
	defaultIdle       = 90 * time.Second
	maxErrorBody      = 64 << 10
	maxDetail         = 300
)

func (o Options) retries() int {
	switch {
	case o.MaxRetries < 0:
		return 0
	case o.MaxRetries == 0:
		return defaultMaxRetries
	}
	return o.MaxRetries
}

func (o Options) wait(attempt int) time.Duration {
	d := o.Backoff
	if d <= 0 {
		d = defaultBackoff
	}
	for i := 0; i < attempt && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

func pick(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// conn is what both wire formats share: the endpoint, the headers, the
// retry loop and the error mapping.
type conn struct {
	name       string
	baseURL    string
	endpoint   string
	header     http.Header
	keyVar     string // the variable the key comes from, for hints
	keyLiteral bool   // the key is written in models.json
	keyMissing bool
	models     []settings.ModelConfig
	client     *http.Client
	opts       Options
}

// New returns a client for one provider of models.json (or a built-in
// one). apiKey names an environment variable (looked up with env, nil
// meaning os.Getenv) or is the key itself; a name-like value (A-Z, 0-9,
// _) whose variable is unset leaves the key missing, and every call then
// fails with ErrAuth saying which variable to set. Header values are
// resolved the same way.
func New(p settings.ProviderConfig, env func(string) string, opts Options) (Client, error) {
	if env == nil {
		env = os.Getenv
	}
	name := p.Name
	if name == "" {
		name = "provider"
	}
	base := strings.TrimRight(strings.TrimSpace(p.BaseURL), "/")
	if p.API != APIOpenAICompletions && p.API != APIAnthropicMessages {
		return nil, &Error{Kind: ErrNoModel, Provider: name, Detail: fmt.Sprintf("unknown api %q", p.API),
			Hint: "set api to " + APIOpenAICompletions + " or " + APIAnthropicMessages + " in models.json"}
	}
	if u, err := url.Parse(base); base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Kind: ErrNoModel, Provider: name, Detail: fmt.Sprintf("baseUrl %q is not an http(s) URL", p.BaseURL),
			Hint: "set baseUrl, for example http://localhost:11434/v1, in models.json"}
	}
	c := &conn{name: name, baseURL: base, models: p.Models, client: opts.HTTPClient, opts: opts, header: http.Header{}}
	if c.client == nil {
		c.client = &http.Client{}
	}
	if c.opts.sleep == nil {
		c.opts.sleep = sleepCtx
	}
	var key string
	key, c.keyVar, c.keyMissing = resolveKey(p.APIKey, env)
	c.keyLiteral = key != "" && c.keyVar == ""
	c.header.Set("Content-Type", "application/json")
	c.header.Set("Accept", "text/event-stream")
	var cl Client
	switch p.API {
	case APIOpenAICompletions:
		c.endpoint = base + "/chat/completions"
		if key != "" {
			c.header.Set("Authorization", "Bearer "+key)
		}
		u, _ := url.Parse(base)
		cl = &openAIClient{c: c, completionTokens: u.Hostname() == "api.openai.com"}
	case APIAnthropicMessages:
		c.endpoint = strings.TrimSuffix(base, "/v1") + "/v1/messages"
		if key != "" {
			c.header.Set("x-api-key", key)
		}
		c.header.Set("anthropic-version", "2023-06-01")
		cl = &anthropicClient{c: c}
	}
	for k, v := range p.Headers {
		if ev := env(v); ev != "" {
			v = ev
		}
		c.header.Set(k, v)
	}
	return cl, nil
}

// resolveKey turns models.json's apiKey into the key: the value of the
// variable it names, else the literal unless it looks like a variable
// name (then the key is missing).
func resolveKey(apiKey string, env func(string) string) (key, keyVar string, missing bool) {
	apiKey = strings.TrimSpace(apiKey)
	if apiKey == "" {
		return "", "", false
	}
	if v := strings.TrimSpace(env(apiKey)); v != "" {
		return v, apiKey, false
	}
	if isEnvName(apiKey) {
		return "", apiKey, true
	}
	return apiKey, "", false
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// modelConfig is the configured model with this id, if any.
func (c *conn) modelConfig(id string) settings.ModelConfig {
	for _, m := range c.models {
		if m.ID == id {
			return m
		}
	}
	return settings.ModelConfig{}
}

func (c *conn) errorf(kind ErrorKind, status int, detail, hint string, err error) *Error {
	return &Error{Kind: kind, Status: status, Provider: c.name, Detail: clean(detail), Hint: hint, Err: err}
}

func (c *conn) keyHint() string {
	switch {
	case c.keyVar != "":
		return "check " + c.keyVar
	case c.keyLiteral:
		return fmt.Sprintf("check the apiKey of provider %q in models.json", c.name)
	}
	return fmt.Sprintf("set apiKey for provider %q in models.json", c.name)
}

func (c *conn) aborted(partial *state, err error) (Result, error) {
	r := Result{StopReason: StopAborted}
	if partial != nil {
		r = partial.result(StopAborted, true)
	}
	return r, &Error{Kind: ErrAborted, Provider: c.name, Err: err}
}

// decoder turns one wire format's events into the shared state.
type decoder interface {
	// handle takes one SSE event; it sets state.finished at the terminator.
	handle(typ, data []byte) error
	// eof says whether the stream may end here with a complete answer.
	eof() bool
}

var (
	errFirstByteTimeout = errors.New("no answer arrived in time")
	errIdleTimeout      = errors.New("the stream stalled")
)

// run sends body to the endpoint and decodes the stream, retrying what
// may be retried.
func (c *conn) run(ctx context.Context, model string, body []byte, newDecoder func(*state) decoder, onEvent func(Event)) (Result, error) {
	if c.keyMissing {
		return Result{StopReason: StopError}, c.errorf(ErrAuth, 0, c.keyVar+" is not set", "set "+c.keyVar, nil)
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return c.aborted(nil, err)
		}
		st := &state{onEvent: onEvent}
		o := c.attempt(ctx, model, body, newDecoder(st), st)
		if o.err == nil || !o.retry || attempt >= c.opts.retries() || o.retryAfter > maxRetryAfter {
			return o.res, o.err
		}
		wait := c.opts.wait(attempt)
		if o.retryAfter > 0 {
			wait = o.retryAfter
		}
		if err := c.opts.sleep(ctx, wait); err != nil {
			return c.aborted(nil, err)
		}
	}
}

// outcome is how one attempt ended.
type outcome struct {
	res        Result
	err        error
	retryAfter time.Duration // the server's Retry-After, 0 if none
	retry      bool          // the call may be tried again
}

func (c *conn) attempt(ctx context.Context, model string, body []byte, dec decoder, st *state) outcome {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var gotByte atomic.Bool
	idle := pick(c.opts.IdleTimeout, defaultIdle)
	fb := pick(c.opts.FirstByteTimeout, defaultFirstByte)
	if fb <= 0 {
		fb = math.MaxInt64 // disabled; the idle timeout may still apply
	}
	timer := c.opts.startTimer(fb, func() {
		if gotByte.Load() {
			cancel(errIdleTimeout)
		} else {
			cancel(errFirstByteTimeout)
		}
	})
	defer timer.Stop()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return outcome{res: Result{StopReason: StopError}, err: c.errorf(ErrOther, 0, "", "check the baseUrl "+c.baseURL, err)}
	}
	req.Header = c.header.Clone()
	resp, err := c.client.Do(req)
	if err != nil {
		return c.failure(ctx, actx, st, false, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if ctx.Err() != nil {
			r, e := c.aborted(nil, ctx.Err())
			return outcome{res: r, err: e}
		}
		return outcome{
			res:        Result{StopReason: StopError},
			err:        c.statusError(resp.StatusCode, model, serverMessage(data)),
			retryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
			retry:      resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500,
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		// A server that answers a streaming request with one JSON document
		// is reporting an error (or does not stream at all).
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		msg := serverMessage(data)
		if msg == "" {
			msg = "the server answered with JSON instead of an event stream"
		}
		return outcome{res: Result{StopReason: StopError}, err: c.errorf(ErrOther, resp.StatusCode, msg, "check that the baseUrl "+c.baseURL+" serves a streaming API", nil)}
	}
	r := &watchReader{r: resp.Body, timer: timer, idle: idle, got: &gotByte}
	sse := newSSEReader(r, maxSSELine)
	for {
		typ, data, err := sse.Next()
		if err == io.EOF {
			if dec.eof() {
				return outcome{res: st.result("", false)}
			}
			if ctx.Err() != nil {
				r, e := c.aborted(st, ctx.Err())
				return outcome{res: r, err: e}
			}
			return outcome{res: st.result(StopError, true), retry: st.sent == 0,
				err: c.errorf(ErrCutOff, 0, "the stream ended before the answer was complete", "try again", nil)}
		}
		if err != nil {
			return c.failure(ctx, actx, st, true, err)
		}
		if err := dec.handle(typ, data); err != nil {
			var pe *Error
			if errors.As(err, &pe) && pe.Provider == "" {
				pe.Provider = c.name
			}
			return outcome{res: st.result(StopError, true), err: err}
		}
		if st.finished {
			return outcome{res: st.result("", false)}
		}
	}
}

// failure classifies a transport error: before the response (streaming
// false) or while reading the stream.
func (c *conn) failure(ctx, actx context.Context, st *state, streaming bool, err error) outcome {
	if ctx.Err() != nil {
		var p *state
		if streaming {
			p = st
		}
		r, e := c.aborted(p, ctx.Err())
		return outcome{res: r, err: e}
	}
	res := Result{StopReason: StopError}
	if streaming {
		res = st.result(StopError, true)
	}
	switch context.Cause(actx) {
	case errFirstByteTimeout:
		d := pick(c.opts.FirstByteTimeout, defaultFirstByte)
		return outcome{res: res, err: c.errorf(ErrTimeout, 0, "no answer within "+d.String(), "check that the server at "+c.baseURL+" runs, or try again", errFirstByteTimeout)}
	case errIdleTimeout:
		d := pick(c.opts.IdleTimeout, defaultIdle)
		return outcome{res: res, err: c.errorf(ErrTimeout, 0, "the stream stalled for "+d.String(), "try again", errIdleTimeout)}
	}
	if errors.Is(err, errLineTooLong) {
		return outcome{res: res, err: c.errorf(ErrOther, 0, "", "check that the baseUrl "+c.baseURL+" serves an event stream", err)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if streaming {
		return outcome{res: res, err: c.errorf(ErrCutOff, 0, "", "try again", err), retry: st.sent == 0}
	}
	return outcome{res: res, err: c.errorf(ErrNetwork, 0, "", "check the baseUrl "+c.baseURL+" and that the server runs", err), retry: true}
}

func (c *conn) statusError(status int, model, msg string) *Error {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return c.errorf(ErrAuth, status, msg, c.keyHint(), nil)
	case status == http.StatusNotFound:
		return c.errorf(ErrNotFound, status, msg, fmt.Sprintf("check the model id %q and the baseUrl %s", model, c.baseURL), nil)
	case status == http.StatusBadRequest || status == http.StatusUnprocessableEntity || status == http.StatusRequestEntityTooLarge:
		if msg == "" {
			msg = fmt.Sprintf("HTTP %d", status)
		}
		return c.errorf(ErrBadRequest, status, msg, "", nil)
	case status == http.StatusTooManyRequests:
		return c.errorf(ErrRateLimit, status, msg, "wait a moment and try again", nil)
	case status >= 500:
		return c.errorf(ErrServer, status, msg, "try again later", nil)
	}
	return c.errorf(ErrOther, status, msg, "", nil)
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date; 0 when
// absent or unreadable.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if n <= 0 || n != n {
			return 0
		}
		if n > 86400 {
			n = 86400
		}
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// serverMessage finds the human message in an error body: OpenAI's and
// Anthropic's {"error":{"message"}}, Ollama's {"error":"…"}, a plain
// {"message"}, or the text itself.
func serverMessage(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ""
	}
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(data, &doc) == nil {
		if m := errorMessage(doc.Error); m != "" {
			return clean(m)
		}
		if doc.Message != "" {
			return clean(doc.Message)
		}
		if doc.Detail != "" {
			return clean(doc.Detail)
		}
	}
	if data[0] == '<' {
		return "" // an HTML error page says nothing useful in one line
	}
	return clean(string(data))
}

// errorMessage reads an "error" member that is a string or an object
// with a message.
func errorMessage(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.Message != "" {
			return o.Message
		}
		return o.Type
	}
	return ""
}

// clean makes server text fit in one line of a sentence: control
// characters and runs of space become one space, and it is cut short.
func clean(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if n >= maxDetail {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// watchReader re-arms the idle timer on every chunk of the body.
type watchReader struct {
	r     io.Reader
	timer timer
	idle  time.Duration
	got   *atomic.Bool
}

func (w *watchReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.got.Store(true)
		if w.idle > 0 {
			w.timer.Reset(w.idle)
		} else {
			w.timer.Stop()
		}
	}
	return n, err
}

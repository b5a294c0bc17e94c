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
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pi-tui/pi-tui/core/pisettings"
)

// API names in models.json.
const (
	APIOpenAICompletions  = "openai-completions"
	APIAnthropicMessages  = "anthropic-messages"
	APIGoogleGenerativeAI = "google-generative-ai"
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
	// Commands remembers what !command keys printed; nil runs a key's
	// command for every new client.
	Commands *CommandCache

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

// conn is what the wire formats share: the endpoint, the headers, the
// key (found on first use), the retry loop and the error mapping.
type conn struct {
	name     string
	baseURL  string
	endpoint string
	api      string
	header   http.Header
	models   []ModelInfo
	thinking string // the level when a request names none
	client   *http.Client
	opts     Options
	env      func(string) string

	// Where the key and header values come from; prepare resolves them
	// once, on the first call, so a !command runs only when needed and
	// can be cancelled with the call.
	plan       keyPlan
	rawHeaders map[string]string
	authHeader bool

	mu      sync.Mutex
	ready   bool
	keyFrom string   // where the key came from, for "check ..." hints
	secrets []string // the key and header values, kept out of errors
}

// New returns a client for one provider of models.json (or a built-in
// one). Its apiKey is read as pi reads it (see resolveValue) when the
// first call is made; a value written as a variable's name whose variable
// is unset makes every call fail with ErrAuth saying which variable to
// set. Header values are read the same way (a name of an unset variable
// is sent as written).
func New(p pisettings.ProviderConfig, env func(string) string, opts Options) (Client, error) {
	name := p.Name
	if name == "" {
		name = "provider"
	}
	pi := &providerInfo{name: name, api: p.API, baseURL: strings.TrimSpace(p.BaseURL)}
	if p.Compat != nil {
		pi.compat = *p.Compat
	}
	var models []ModelInfo
	for _, mc := range p.Models {
		models = append(models, modelFromConfig(pi, mc))
	}
	t := target{provider: name, api: p.API, baseURL: p.BaseURL, models: models, headers: p.Headers, authHeader: p.AuthHeader,
		plan: keyPlan{raw: strings.TrimSpace(p.APIKey), what: fmt.Sprintf("the apiKey of provider %q in %s", name, pisettings.ModelsFile)}}
	return buildClient(t, env, opts)
}

// target is everything a client is built from.
type target struct {
	provider   string
	api        string
	baseURL    string
	models     []ModelInfo
	headers    map[string]string
	authHeader bool
	plan       keyPlan
	thinking   string
}

func buildClient(t target, env func(string) string, opts Options) (Client, error) {
	if env == nil {
		env = os.Getenv
	}
	name := t.provider
	base := strings.TrimRight(strings.TrimSpace(t.baseURL), "/")
	switch t.api {
	case APIOpenAICompletions, APIAnthropicMessages, APIGoogleGenerativeAI:
	default:
		return nil, &Error{Kind: ErrNoModel, Provider: name, Detail: fmt.Sprintf("unknown api %q", t.api),
			Hint: "set api to " + APIOpenAICompletions + ", " + APIAnthropicMessages + " or " + APIGoogleGenerativeAI + " in models.json"}
	}
	if u, err := url.Parse(base); base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &Error{Kind: ErrNoModel, Provider: name, Detail: fmt.Sprintf("baseUrl %q is not an http(s) URL", t.baseURL),
			Hint: "set baseUrl, for example http://localhost:11434/v1, in models.json"}
	}
	c := &conn{name: name, baseURL: base, api: t.api, models: t.models, thinking: t.thinking, client: opts.HTTPClient, opts: opts,
		header: http.Header{}, env: env, plan: t.plan, rawHeaders: t.headers, authHeader: t.authHeader}
	if c.client == nil {
		c.client = &http.Client{}
	}
	if c.opts.sleep == nil {
		c.opts.sleep = sleepCtx
	}
	c.header.Set("Content-Type", "application/json")
	c.header.Set("Accept", "text/event-stream")
	switch t.api {
	case APIOpenAICompletions:
		c.endpoint = base + "/chat/completions"
		u, _ := url.Parse(base)
		return &openAIClient{c: c, completionTokens: u.Hostname() == "api.openai.com"}, nil
	case APIAnthropicMessages:
		c.endpoint = strings.TrimSuffix(base, "/v1") + "/v1/messages"
		c.header.Set("anthropic-version", "2023-06-01")
		return &anthropicClient{c: c}, nil
	}
	return &googleClient{c: c}, nil
}

// prepare finds the key and the header values, once. A key that is
// missing or whose command failed is an ErrAuth saying what to do.
func (c *conn) prepare(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready {
		return nil
	}
	var key string
	switch {
	case c.plan.raw != "":
		v, err := resolveValue(ctx, c.plan.raw, c.plan.what, c.env, c.opts.Commands)
		if err != nil {
			if ctx.Err() != nil {
				return &Error{Kind: ErrAborted, Provider: c.name, Err: ctx.Err()}
			}
			hint := "fix " + c.plan.what
			var ve *valueError
			if errors.As(err, &ve) && ve.setVar != "" {
				hint = "set " + ve.setVar
			}
			return &Error{Kind: ErrAuth, Provider: c.name, Detail: err.Error(), Hint: hint}
		}
		key = v
		c.keyFrom = c.plan.what
		if isEnvName(c.plan.raw) {
			c.keyFrom = c.plan.raw
		}
	case c.plan.envVar != "":
		key = strings.TrimSpace(c.env(c.plan.envVar))
		c.keyFrom = c.plan.envVar
	}
	if key == "" && c.plan.needed {
		return &Error{Kind: ErrAuth, Provider: c.name, Hint: c.plan.hint}
	}
	if key != "" {
		c.secrets = append(c.secrets, key)
		switch c.api {
		case APIOpenAICompletions:
			c.header.Set("Authorization", "Bearer "+key)
		case APIAnthropicMessages:
			c.header.Set("x-api-key", key)
		case APIGoogleGenerativeAI:
			c.header.Set("x-goog-api-key", key)
		}
		if c.authHeader {
			c.header.Set("Authorization", "Bearer "+key)
		}
	}
	for k, raw := range c.rawHeaders {
		v := raw
		if !isEnvName(strings.TrimSpace(raw)) || c.env(strings.TrimSpace(raw)) != "" {
			r, err := resolveValue(ctx, raw, fmt.Sprintf("header %s of provider %q", k, c.name), c.env, c.opts.Commands)
			if err != nil {
				if ctx.Err() != nil {
					return &Error{Kind: ErrAborted, Provider: c.name, Err: ctx.Err()}
				}
				return &Error{Kind: ErrOther, Provider: c.name, Detail: err.Error(), Hint: "fix the header in " + pisettings.ModelsFile}
			}
			v = r
		}
		c.header.Set(k, v)
		if len(v) >= minSecret {
			c.secrets = append(c.secrets, v)
		}
	}
	c.ready = true
	return nil
}

// minSecret is the shortest value redact removes: shorter ones would
// blank ordinary words in server messages.
const minSecret = 8

// redact replaces every key and header value in s.
func (c *conn) redact(s string) string {
	c.mu.Lock()
	secrets := c.secrets
	c.mu.Unlock()
	for _, k := range secrets {
		if len(k) >= minSecret && strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

// redactedError keeps an error's chain but not its text when that held a
// secret.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

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

// modelInfo is the configured model with this id; an unknown id gets pi's
// defaults.
func (c *conn) modelInfo(id string) ModelInfo {
	for _, m := range c.models {
		if m.ID == id {
			return m
		}
	}
	return ModelInfo{Provider: c.name, ID: id, Name: id, API: c.api, BaseURL: c.baseURL}
}

// level is the thinking level of a request, clamped to what the model
// supports.
func (c *conn) level(req Request, m ModelInfo) string {
	l := req.Thinking
	if l == "" {
		l = c.thinking
	}
	if l == "" {
		l = ThinkingOff
	}
	return ClampThinking(m.ThinkingLevels(), l)
}

func (c *conn) errorf(kind ErrorKind, status int, detail, hint string, err error) *Error {
	if err != nil {
		if msg := err.Error(); c.redact(msg) != msg {
			err = &redactedError{msg: c.redact(msg), err: err}
		}
	}
	return &Error{Kind: kind, Status: status, Provider: c.name, Detail: clean(c.redact(detail)), Hint: hint, Err: err}
}

func (c *conn) keyHint() string {
	if c.keyFrom != "" {
		return "check " + c.keyFrom
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
	return c.runAt(ctx, c.endpoint, model, body, newDecoder, onEvent)
}

// runAt is run with an endpoint of the call's own (Gemini names the model
// in the path).
func (c *conn) runAt(ctx context.Context, endpoint, model string, body []byte, newDecoder func(*state) decoder, onEvent func(Event)) (Result, error) {
	if err := c.prepare(ctx); err != nil {
		return Result{StopReason: StopError}, err
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return c.aborted(nil, err)
		}
		st := &state{onEvent: onEvent}
		o := c.attempt(ctx, endpoint, model, body, newDecoder(st), st)
		if o.err == nil || !o.retry || attempt >= c.opts.retries() || o.retryAfter > maxRetryAfter {
			return o.res, o.err
		}
		wait := c.opts.wait(attempt)
		if o.retryAfter > 0 {
			wait = o.retryAfter
		}
		if onEvent != nil {
			onEvent(Event{Type: EventRetry, Retry: &RetryInfo{Attempt: attempt + 1, Max: c.opts.retries(), Wait: wait, Reason: retryReason(o.err)}})
		}
		if err := c.opts.sleep(ctx, wait); err != nil {
			return c.aborted(nil, err)
		}
	}
}

// retryReason says briefly why an attempt failed ("HTTP 500", "rate
// limited", "cannot reach the server").
func retryReason(err error) string {
	var pe *Error
	if !errors.As(err, &pe) {
		return "the call failed"
	}
	switch {
	case pe.Status != 0 && pe.Kind == ErrRateLimit:
		return fmt.Sprintf("rate limited (HTTP %d)", pe.Status)
	case pe.Status != 0:
		return fmt.Sprintf("HTTP %d", pe.Status)
	}
	return kindText(pe.Kind, 0)
}

// outcome is how one attempt ended.
type outcome struct {
	res        Result
	err        error
	retryAfter time.Duration // the server's Retry-After, 0 if none
	retry      bool          // the call may be tried again
}

func (c *conn) attempt(ctx context.Context, endpoint, model string, body []byte, dec decoder, st *state) outcome {
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
	req, err := http.NewRequestWithContext(actx, http.MethodPost, endpoint, bytes.NewReader(body))
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
			err:        c.statusError(resp.StatusCode, model, data),
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
			if errors.As(err, &pe) {
				if pe.Provider == "" {
					pe.Provider = c.name
				}
				pe.Detail = clean(c.redact(pe.Detail))
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
	return outcome{res: res, err: c.errorf(ErrNetwork, 0, networkDetail(err), "check the baseUrl "+c.baseURL+" and that the server runs", err), retry: true}
}

func (c *conn) statusError(status int, model string, body []byte) *Error {
	msg := serverMessage(body)
	switch {
	case status == http.StatusBadRequest && bytes.Contains(body, []byte("API_KEY_INVALID")):
		// Gemini reports a bad key as a 400.
		return c.errorf(ErrAuth, status, msg, c.keyHint(), nil)
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

// serverMessage finds the human message in an error body: OpenAI's,
// Anthropic's and Gemini's {"error":{"message"}}, Ollama's {"error":"…"},
// a plain {"message"}, or the text itself. It is not cleaned: callers
// redact keys from it first, then clean it (errorf does both).
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
			return m
		}
		if doc.Message != "" {
			return doc.Message
		}
		if doc.Detail != "" {
			return doc.Detail
		}
	}
	if data[0] == '<' {
		return "" // an HTML error page says nothing useful in one line
	}
	return string(data)
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

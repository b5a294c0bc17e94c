package provider

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// keyServer is an OpenAI-compatible server that records the key each
// request carried; agentDir's models.json points the built-in openai
// provider at it (and adds apiKey when given).
func keyServer(t *testing.T, dir, apiKey string) *server {
	t.Helper()
	srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) { writeOK(APIOpenAICompletions, w) })
	key := ""
	if apiKey != "" {
		key = `,"apiKey":` + jsonString(apiKey)
	}
	writeFile(t, dir, "models.json", `{"providers":{"openai":{"baseUrl":"`+srv.URL+`"`+key+`}}}`)
	return srv
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// sentKey resolves openai/gpt-5.6-terra in dir, makes one call and
// returns the bearer key the server saw.
func sentKey(t *testing.T, dir string, env func(string) string, srv *server) (string, error) {
	t.Helper()
	c, _, err := Resolve(dir, env, "openai/gpt-5.6-terra", Options{Commands: NewCommandCache()})
	if err != nil {
		return "", err
	}
	n := len(srv.requests())
	if _, _, err := collect(t, context.Background(), c, Request{Model: "gpt-5.6-terra", Messages: simpleRequest().Messages}); err != nil {
		return "", err
	}
	reqs := srv.requests()
	if len(reqs) != n+1 {
		t.Fatalf("%d requests", len(reqs)-n)
	}
	return strings.TrimPrefix(reqs[n].header.Get("Authorization"), "Bearer "), nil
}

// TestKeyOrder: auth.json's api_key entry wins over models.json's apiKey,
// which wins over the provider's environment variable (pi 0.85's order).
func TestKeyOrder(t *testing.T) {
	dir := t.TempDir()
	env := envOf(map[string]string{"OPENAI_API_KEY": "sk-from-environment"})
	srv := keyServer(t, dir, "")
	if k, err := sentKey(t, dir, env, srv); err != nil || k != "sk-from-environment" {
		t.Errorf("env only: %q, %v", k, err)
	}
	srv = keyServer(t, dir, "sk-from-models-json")
	if k, err := sentKey(t, dir, env, srv); err != nil || k != "sk-from-models-json" {
		t.Errorf("models.json over env: %q, %v", k, err)
	}
	writeFile(t, dir, "auth.json", `{"openai":{"type":"api_key","key":"sk-from-auth-json"}}`)
	if k, err := sentKey(t, dir, env, srv); err != nil || k != "sk-from-auth-json" {
		t.Errorf("auth.json over models.json: %q, %v", k, err)
	}
}

// TestKeyValueSyntax: the values auth.json and models.json may hold, as
// pi 0.73 and 0.85 read them.
func TestKeyValueSyntax(t *testing.T) {
	env := envOf(map[string]string{"MY_KEY": "sk-my", "lower_key": "sk-lower", "PART": "middle"})
	cases := []struct{ in, want string }{
		{"MY_KEY", "sk-my"},                     // 0.73: a variable's name
		{"lower_key", "sk-lower"},               // any variable's name
		{"$MY_KEY", "sk-my"},                    // 0.85: $VAR
		{"pre-${PART}-post", "pre-middle-post"}, // ${VAR} inside text
		{"$$literal", "$literal"},               // $$ escapes $
		{"$!not-a-command", "!not-a-command"},   // $! escapes !
		{"sk-plain-literal", "sk-plain-literal"},
		{"cost$5", "cost$5"}, // a $ before a digit stays
		{"!printf '%s' sk-from-command", "sk-from-command"},
	}
	for _, tc := range cases {
		got, err := resolveValue(context.Background(), tc.in, "the test value", env, nil)
		if err != nil || got != tc.want {
			t.Errorf("%q = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"UNSET_KEY", "$UNSET_KEY", "x-${UNSET_KEY}"} {
		_, err := resolveValue(context.Background(), in, "the test value", env, nil)
		var ve *valueError
		if !errors.As(err, &ve) || ve.setVar != "UNSET_KEY" || !strings.Contains(err.Error(), "which is not set") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestKeyCommand: a !command in auth.json gives the key; it runs once per
// cache; its failures say which value failed and never what it printed.
func TestKeyCommand(t *testing.T) {
	dir := t.TempDir()
	srv := keyServer(t, dir, "")
	count := filepath.Join(dir, "runs")
	writeFile(t, dir, "auth.json", `{"openai":{"type":"api_key","key":`+jsonString("!echo run >> "+count+"; printf 'sk-from-command\\n'")+`}}`)
	cache := NewCommandCache()
	for range 2 {
		c, _, err := Resolve(dir, envOf(nil), "openai/gpt-5.6-terra", Options{Commands: cache})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := collect(t, context.Background(), c, Request{Model: "gpt-5.6-terra", Messages: simpleRequest().Messages}); err != nil {
			t.Fatal(err)
		}
	}
	if k := srv.requests()[1].header.Get("Authorization"); k != "Bearer sk-from-command" {
		t.Errorf("key = %q", k)
	}
	if data, _ := os.ReadFile(count); strings.Count(string(data), "run") != 1 {
		t.Errorf("the command ran %d times for two clients sharing a cache", strings.Count(string(data), "run"))
	}

	for cmd, want := range map[string]string{
		"!echo sk-leaked-by-error; exit 3":      "the command in auth.json's key for openai failed (exit status 3); run it in a shell to see why",
		"!true":                                 "the command in auth.json's key for openai printed nothing",
		"!head -c 70000 /dev/zero | tr '\\0' a": "the command in auth.json's key for openai printed more than 64 KiB",
	} {
		writeFile(t, dir, "auth.json", `{"openai":{"type":"api_key","key":`+jsonString(cmd)+`}}`)
		_, err := sentKey(t, dir, envOf(nil), srv)
		wantKind(t, err, ErrAuth)
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "sk-leaked") {
			t.Errorf("%s: error = %v", cmd, err)
		}
	}
}

// TestKeyCommandCancelled: cancelling the call stops a key command that
// hangs, children and all, and the call ends as aborted.
func TestKeyCommandCancelled(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := keyServer(t, dir, "!echo go > "+fifo+"; sleep 600 | cat")
	c, _, err := Resolve(dir, envOf(nil), "openai/gpt-5.6-terra", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the command is running.
		if f, err := os.Open(fifo); err == nil {
			buf := make([]byte, 8)
			f.Read(buf)
			f.Close()
		}
		cancel()
	}()
	_, err = c.Stream(ctx, Request{Model: "gpt-5.6-terra", Messages: simpleRequest().Messages}, nil)
	wantKind(t, err, ErrAborted)
	if len(srv.requests()) != 0 {
		t.Error("a request was sent without a key")
	}
}

// TestKeysNeverInErrors: a server that echoes the key in an error body
// (HTTP or in the stream) gets it redacted; the rest of its message stays.
func TestKeysNeverInErrors(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	bodies := []struct {
		status int
		body   string
		kind   ErrorKind
	}{
		{401, `{"error":{"message":"Incorrect API key provided: ` + key + `. You can find your key at the dashboard."}}`, ErrAuth},
		{400, `{"error":{"code":400,"message":"API key not valid: ` + key + `","status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}}`, ErrAuth},
		{500, strings.Repeat("x", 290) + key, ErrServer}, // the key straddles the cut of a long message
	}
	for _, api := range apis {
		for _, b := range bodies {
			srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(b.status)
				w.Write([]byte(b.body))
			})
			c := keyClient(t, api, srv.URL, key)
			_, _, err := collect(t, context.Background(), c, simpleRequest())
			if b.status == 400 && api != APIGoogleGenerativeAI {
				continue // only Gemini says a bad key this way
			}
			wantKind(t, err, b.kind)
			if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), key[:12]) {
				t.Errorf("%s %d: the key is in %q", api, b.status, err)
			}
			if b.status == 401 && !strings.Contains(err.Error(), "Incorrect API key provided: [redacted]. You can find") {
				t.Errorf("%s: message = %q", api, err)
			}
		}
		// In the stream.
		srv := newServer(t, func(_ int, _ *server, w http.ResponseWriter, r *http.Request) {
			s := newStream(w)
			switch api {
			case APIAnthropicMessages:
				s.event("error", `{"type":"error","error":{"type":"authentication_error","message":"bad key `+key+`"}}`)
			default:
				s.data(`{"error":{"message":"bad key ` + key + `","code":401,"status":"UNAUTHENTICATED"}}`)
			}
		})
		_, _, err := collect(t, context.Background(), keyClient(t, api, srv.URL, key), simpleRequest())
		if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "the API key was rejected (bad key [redacted])") {
			t.Errorf("%s stream: %v", api, err)
		}
	}
}

func keyClient(t *testing.T, api, url, key string) Client {
	t.Helper()
	p := settingsProvider(api, url)
	p.APIKey = key
	c, err := New(p, nil, testOpts(&sleeps{}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

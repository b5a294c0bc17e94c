package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// openAIServer serves /v1/models as an OpenAI-compatible server does,
// wanting key when it is not "".
func openAIServer(t *testing.T, key string, ids ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
			return
		}
		var b strings.Builder
		b.WriteString(`{"object":"list","data":[`)
		for i, id := range ids {
			if i > 0 {
				b.WriteString(",")
			}
			q, _ := json.Marshal(id)
			fmt.Fprintf(&b, `{"id":%s,"object":"model","owned_by":"me"}`, q)
		}
		b.WriteString("]}")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestProbeFindsTheModelsAndTheV1Base(t *testing.T) {
	srv := openAIServer(t, "sekret", "qwen3:8b", "llama-4", "qwen3:8b")
	for _, base := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + "/v1/"} {
		p, err := ProbeEndpoint(context.Background(), nil, base, "sekret")
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if p.BaseURL != srv.URL+"/v1" || strings.Join(p.Models, ",") != "qwen3:8b,llama-4" {
			t.Fatalf("%s: got base %s models %v", base, p.BaseURL, p.Models)
		}
	}
}

func TestProbeSaysWhatWentWrongInOneSentence(t *testing.T) {
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>hello</html>"))
	}))
	defer garbage.Close()
	wrongShape := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"models":["a"]}`))
	}))
	defer wrongShape.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data":[`))
		chunk := strings.Repeat(`{"id":"`+strings.Repeat("x", 1000)+`"},`, 1000)
		for range 10 {
			w.Write([]byte(chunk))
		}
	}))
	defer huge.Close()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hang)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	keyed := openAIServer(t, "right")
	weird := openAIServer(t, "", "ok-model", "bad\x1b[31mid", "zero\u200bwidth", "")

	cases := []struct {
		name, base, key, want string
	}{
		{"garbage", garbage.URL, "", "did not answer with an OpenAI model list"},
		{"wrong shape", wrongShape.URL, "", "did not answer with an OpenAI model list"},
		{"huge", huge.URL, "", "more than 8 MiB"},
		{"no answer", closedURL, "", "did not answer"},
		{"needs a key", keyed.URL, "", "it wants a key; name the variable that holds it with --api-key-env"},
		{"wrong key", keyed.URL, "wrong", "it refused the key"},
		{"not a url", "ftp://x", "", "must be an http:// or https:// address"},
		{"password in url", "http://u:p@127.0.0.1:1", "", "holds a user name or password"},
		{"404", garbage.URL + "/nothing-here/v1", "", ""},
	}
	for _, c := range cases {
		_, err := ProbeEndpoint(context.Background(), nil, c.base, c.key)
		if c.want == "" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", c.name, err, c.want)
		}
		if c.key != "" && err != nil && strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: the key is in the error: %v", c.name, err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := ProbeEndpoint(ctx, nil, slow.URL, ""); err == nil || !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("a server that never answers: got %v", err)
	}

	p, err := ProbeEndpoint(context.Background(), nil, weird.URL, "")
	if err != nil || strings.Join(p.Models, ",") != "ok-model" {
		t.Errorf("ids with control or invisible characters must be left out: %v %q", err, p.Models)
	}
}

func TestTenThousandModelsAddNothingUnlessNamed(t *testing.T) {
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = fmt.Sprintf("model-%05d", i)
	}
	srv := openAIServer(t, "", ids...)
	p, err := ProbeEndpoint(context.Background(), nil, srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Select(nil); err == nil || !strings.Contains(err.Error(), "lists 10000 models, more than the 500 pi-tui adds; nothing was added") {
		t.Fatalf("got %v", err)
	}
	got, err := p.Select([]string{"model-00042", "model-09999"})
	if err != nil || len(got) != 2 {
		t.Fatalf("named models: %v %v", got, err)
	}
	if _, err := p.Select([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `does not list the model "nope"`) {
		t.Fatalf("an unlisted model: %v", err)
	}
}

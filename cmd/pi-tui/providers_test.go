package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// modelsServer answers GET /v1/models with body.
func modelsServer(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestProvidersAddWritesOnlyTheNewProvider(t *testing.T) {
	c := newCLI(t)
	agent := filepath.Join(c.env["HOME"], ".pi", "agent")
	path := filepath.Join(agent, "models.json")
	before := "{\n  // mine\n  \"providers\": {\n    \"ollama\": { \"baseUrl\": \"http://localhost:11434/v1\", \"api\": \"openai-completions\", \"apiKey\": \"ollama\", \"models\": [{\"id\": \"q\"}] }\n  }\n}\n"
	writeFile(t, path, before)
	url := modelsServer(t, `{"object":"list","data":[{"id":"m-a"},{"id":"m-b"}]}`)
	c.env["LAB_KEY"] = "k"

	out := c.ok("providers", "add", "lab", "--base-url", url, "--api-key-env", "LAB_KEY")
	if !strings.Contains(out, "lists 2 models: m-a m-b") || !strings.Contains(out, "Added provider lab") {
		t.Fatalf("output:\n%s", out)
	}
	after, _ := os.ReadFile(path)
	i := strings.Index(string(after), ",\n    \"lab\"")
	if i < 0 {
		t.Fatalf("no lab provider after ollama:\n%s", after)
	}
	added := string(after[i:])
	added = added[:len(added)-len("\n  }\n}\n")]
	if string(after[:i])+string(after[i+len(added):]) != before {
		t.Fatalf("bytes outside the added provider changed:\n%s", after)
	}
	if !strings.Contains(added, `"baseUrl": "`+url+`/v1"`) || !strings.Contains(added, `"apiKey": "$LAB_KEY"`) {
		t.Fatalf("added:\n%s", added)
	}

	// The list shows it, ready by the variable, for the built-in engine.
	var st struct {
		Providers []struct {
			Name, By, Source string
			Ready            bool
			Models           []string
		}
		PiProblem string
	}
	if err := json.Unmarshal([]byte(c.ok("providers", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, p := range st.Providers {
		if p.Name == "lab" {
			found = p.Ready && p.By == "models" && strings.Join(p.Models, ",") == "m-a,m-b"
		}
	}
	if !found || !strings.Contains(st.PiProblem, "install pi") {
		t.Fatalf("providers --json: %+v", st)
	}

	// Garbage, too many models, a name in use: one line, nothing written.
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = `{"id":"m` + itoa(i) + `"}`
	}
	many := `{"data":[` + strings.Join(ids, ",") + "]}"
	c.fails(1, "did not answer with an OpenAI model list", "providers", "add", "junk", "--base-url", modelsServer(t, "<html>"))
	c.fails(1, "lists 10000 models, more than the 500 pi-tui adds; nothing was added", "providers", "add", "big", "--base-url", modelsServer(t, many))
	c.fails(1, `a provider "lab" already exists`, "providers", "add", "lab", "--base-url", url)
	c.fails(1, `a provider "anthropic" already exists`, "providers", "add", "anthropic", "--base-url", url)
	c.fails(2, "--base-url is required", "providers", "add", "x")
	c.fails(2, "must start with a letter or digit", "providers", "add", "bad/name", "--base-url", url)
	if again, _ := os.ReadFile(path); string(again) != string(after) {
		t.Fatalf("a refused add changed models.json:\n%s", again)
	}
	// Only named models, from a big list.
	out = c.ok("providers", "add", "big", "--base-url", modelsServer(t, many), "--model", "m42", "--model", "m9999")
	if !strings.Contains(out, "lists 10,000 models") || !strings.Contains(out, "Added provider big") {
		t.Fatalf("output:\n%s", out)
	}
}

package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOAuthLoginsAreNamed: OAuth logins pi wrote to auth.json are never
// skipped silently: each is one sentence saying which provider and what
// to do, in the problems, the picker's hint and the error of a call.
func TestOAuthLoginsAreNamed(t *testing.T) {
	dir := t.TempDir()
	const token = "sk-ant-oat01-SECRET-ACCESS-TOKEN"
	writeFile(t, dir, "auth.json", `{
  "anthropic": {"type": "oauth", "access": "`+token+`", "refresh": "r-SECRET", "expires": 1796016193053},
  "github-copilot": {"type": "oauth", "access": "ghu-SECRET", "refresh": "x", "expires": 1},
  "openai": {"type": "api_key", "key": "sk-openai-in-auth"}
}`)
	r := Load(dir, envOf(nil))
	probs := strings.Join(r.Problems(), "\n")
	for _, want := range []string{
		filepath.Join(dir, "auth.json") + " holds an OAuth login for anthropic, which pi-tui cannot use: set ANTHROPIC_API_KEY, or give anthropic an api_key entry in auth.json",
		filepath.Join(dir, "auth.json") + " holds an OAuth login for github-copilot, which pi-tui cannot use: choose a provider with an API key instead",
	} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems lack %q:\n%s", want, probs)
		}
	}
	if strings.Contains(probs, "SECRET") || strings.Contains(probs, "sk-openai") {
		t.Errorf("problems show a credential:\n%s", probs)
	}
	var anthropic, openai Listed
	for _, l := range r.Models() {
		switch l.String() {
		case "anthropic/claude-sonnet-5-5":
			anthropic = l
		case "openai/gpt-5.6-terra":
			openai = l
		}
	}
	if anthropic.Usable || !strings.Contains(anthropic.Hint, "OAuth login for anthropic") || !openai.Usable {
		t.Errorf("anthropic %+v, openai %+v", anthropic, openai)
	}
	c, _, err := Resolve(dir, envOf(nil), "anthropic/claude-sonnet-5-5", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Stream(context.Background(), Request{Model: "claude-sonnet-5-5", Messages: simpleRequest().Messages}, nil)
	wantKind(t, err, ErrAuth)
	if !strings.Contains(err.Error(), "holds an OAuth login for anthropic, which pi-tui cannot use") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error = %v", err)
	}
	// With a key in the environment, that key is used and the note says so.
	r = Load(dir, envOf(map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}))
	if p := strings.Join(r.Problems(), "\n"); !strings.Contains(p, "holds an OAuth login for anthropic, which pi-tui cannot use; it uses ANTHROPIC_API_KEY instead") {
		t.Errorf("problems = %s", p)
	}
	// An OAuth token in the environment is named too.
	r = Load(t.TempDir(), envOf(map[string]string{"ANTHROPIC_OAUTH_TOKEN": token}))
	for _, l := range r.Models() {
		if l.Provider == "anthropic" && !strings.Contains(l.Hint, "ANTHROPIC_OAUTH_TOKEN holds an OAuth token, which pi-tui cannot use: set ANTHROPIC_API_KEY") {
			t.Fatalf("hint = %q", l.Hint)
		}
	}
}

// TestAuthFileHandling: auth.json is read only as a regular file (a FIFO
// is refused at once), a malformed one is one sentence with the position
// and none of its content, and one that others can read is used with a
// warning.
func TestAuthFileHandling(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "auth.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Load(dir, envOf(map[string]string{"OPENAI_API_KEY": "k"}))
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v", err)
	}
	_, _, err := Resolve(dir, envOf(map[string]string{"OPENAI_API_KEY": "k"}), "", Options{})
	wantKind(t, err, ErrConfig)

	dir = t.TempDir()
	writeFile(t, dir, "auth.json", "{\n  \"openai\": {\"type\": \"api_key\", \"key\": \"sk-SECRET-in-a-broken-file\"\n  \"x\": 1\n}")
	_, _, err = Resolve(dir, envOf(map[string]string{"OPENAI_API_KEY": "k"}), "", Options{})
	wantKind(t, err, ErrConfig)
	want := filepath.Join(dir, "auth.json") + " is not valid JSON at line 3, column 3; fix it: pi-tui picks no model until it can read it"
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	writeFile(t, dir, "auth.json", `{"openai": {"type": "api_key", "key": ["sk-SECRET-in-a-list"]}}`)
	if err := Load(dir, nil).Err(); err == nil || strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), `the entry for "openai" has a "key" that is not a string`) {
		t.Errorf("error = %v", err)
	}

	dir = t.TempDir()
	writeFile(t, dir, "auth.json", `{"openai": {"type": "api_key", "key": "sk-shared"}}`)
	if err := os.Chmod(filepath.Join(dir, "auth.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = Load(dir, nil)
	if r.Err() != nil || len(r.Usable()) == 0 || !strings.Contains(strings.Join(r.Problems(), "\n"), "can be read by other users (mode 0644): run chmod 600 "+filepath.Join(dir, "auth.json")) {
		t.Errorf("mode 0644: err %v, usable %d, problems %q", r.Err(), len(r.Usable()), r.Problems())
	}
}

// TestModelsListing: the usable models come first; the others say which
// key they need.
func TestModelsListing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"local":{"baseUrl":"http://localhost:8080/v1","api":"openai-completions","models":[{"id":"m"}]}}}`)
	models := Load(dir, envOf(map[string]string{"GEMINI_API_KEY": "g"})).Models()
	var usable []string
	seenUnusable := false
	need := map[string]string{}
	for _, l := range models {
		if l.Usable {
			if seenUnusable {
				t.Fatalf("%s is usable but listed after an unusable model", l)
			}
			usable = append(usable, l.String())
			continue
		}
		seenUnusable = true
		need[l.Provider] = l.Need
	}
	if len(usable) < 2 || usable[0] != "local/m" || !strings.HasPrefix(usable[1], "google/") {
		t.Errorf("usable = %v", usable)
	}
	want := map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "groq": "GROQ_API_KEY", "xai": "XAI_API_KEY",
		"openrouter": "OPENROUTER_API_KEY", "mistral": "MISTRAL_API_KEY", "deepseek": "DEEPSEEK_API_KEY", "cerebras": "CEREBRAS_API_KEY",
		"zai": "ZAI_API_KEY", "huggingface": "HF_TOKEN"}
	for p, v := range want {
		if need[p] != v {
			t.Errorf("%s needs %q, want %q", p, need[p], v)
		}
	}
}

// TestModelOverrides: modelOverrides change only what they name; an id
// the provider does not have is named, not silently dropped.
func TestModelOverrides(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "models.json", `{"providers":{"anthropic":{
		"modelOverrides":{
			"claude-haiku-4-5":{"name":"Haiku (team)","contextWindow":150000,"cost":{"input":0.5},"reasoning":false},
			"claude-nope":{"name":"x"}}}}}`)
	r := Load(dir, envOf(map[string]string{"ANTHROPIC_API_KEY": "k"}))
	_, m, ok := r.find("anthropic", "claude-haiku-4-5")
	if !ok || m.Name != "Haiku (team)" || m.ContextWindow != 150000 || m.MaxTokens != 64000 || m.Cost.Input != 0.5 || m.Cost.Output != 5 || m.Reasoning {
		t.Errorf("overridden = %+v", m)
	}
	if !strings.Contains(strings.Join(r.Problems(), "\n"), `modelOverrides of anthropic names "claude-nope", which anthropic does not have`) {
		t.Errorf("problems = %q", r.Problems())
	}
}

// TestCatalogue: every built-in provider of pi's key table is there, with
// its variable, an API pi-tui speaks and an https address, and every
// model has its sizes.
func TestCatalogue(t *testing.T) {
	ps, err := builtIns()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "google": "GEMINI_API_KEY", "groq": "GROQ_API_KEY",
		"xai": "XAI_API_KEY", "openrouter": "OPENROUTER_API_KEY", "mistral": "MISTRAL_API_KEY", "deepseek": "DEEPSEEK_API_KEY",
		"cerebras": "CEREBRAS_API_KEY", "zai": "ZAI_API_KEY", "huggingface": "HF_TOKEN"}
	for _, p := range ps {
		if len(p.env) == 0 || env[p.name] != p.env[0] {
			t.Errorf("%s: env %v", p.name, p.env)
		}
		delete(env, p.name)
		if !strings.HasPrefix(p.baseURL, "https://") || (p.api != APIOpenAICompletions && p.api != APIAnthropicMessages && p.api != APIGoogleGenerativeAI) {
			t.Errorf("%s: %s %s", p.name, p.api, p.baseURL)
		}
		if len(p.models) == 0 {
			t.Errorf("%s has no models", p.name)
		}
		for _, m := range p.models {
			if m.ID == "" || m.ContextWindow <= 0 || m.MaxTokens <= 0 || m.MaxTokens > m.ContextWindow*2 {
				t.Errorf("%s: %+v", m, m)
			}
			if (p.name == "anthropic" || p.name == "openai" || p.name == "google") && (m.Cost.Input <= 0 || m.Cost.Output <= 0 || !m.Reasoning) {
				t.Errorf("%s: prices or reasoning missing: %+v", m, m)
			}
			if lv := m.ThinkingLevels(); len(lv) == 0 {
				t.Errorf("%s: no levels", m)
			}
		}
	}
	if len(env) > 0 {
		t.Errorf("missing providers: %v", env)
	}
}

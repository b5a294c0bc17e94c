package providers

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pi-tui/pi-tui/internal/realpi"
)

// piFor returns the real pi 1.x with its agent dir and home in t's
// temporary folder, or skips t saying how to provide one.
func piFor(t *testing.T, agentDir string, env ...string) *Pi {
	t.Helper()
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	home := t.TempDir()
	return &Pi{Argv: argv, AgentDir: agentDir, Env: append(append(os.Environ(), "HOME="+home), env...)}
}

// corpExtension registers corp-ai, a provider with an account login, the
// way a pi extension does; with apiKey it is ready without one.
func corpExtension(baseURL, apiKey string) string {
	key := ""
	if apiKey != "" {
		key = `apiKey: "` + apiKey + `",`
	}
	return `export default function (pi: any) {
  pi.registerProvider("corp-ai", {
    name: "Corp AI", baseUrl: "` + baseURL + `", api: "openai-completions", ` + key + `
    models: [{ id: "corp-1", name: "Corp One", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
    oauth: {
      name: "Corp AI (SSO)",
      async login(callbacks: any) {
        const res = await fetch("` + baseURL + `/authorize", { method: "POST" });
        const { verification, device } = await res.json();
        callbacks.onAuth({ url: verification });
        const code = await callbacks.onPrompt({ message: "Paste the code" });
        const tok = await fetch("` + baseURL + `/token", { method: "POST", body: JSON.stringify({ device, code }) });
        const t = await tok.json();
        return { refresh: t.refresh, access: t.access, expires: t.expires };
      },
      async refreshToken(c: any) { return c; },
      getApiKey(c: any) { return c.access; },
    },
  });
}
`
}

func TestReadShowsHowEachProviderIsReached(t *testing.T) {
	agent := t.TempDir()
	pi := piFor(t, agent, "ANTHROPIC_API_KEY=sk-test-not-real")
	expires := time.Now().Add(90 * time.Minute).Truncate(time.Millisecond)
	auth := `{"github-copilot":{"type":"oauth","access":"ACCESS-SECRET","refresh":"REFRESH-SECRET","expires":` +
		strconv.FormatInt(expires.UnixMilli(), 10) + `},` +
		`"groq":{"type":"api_key","key":"gsk-SECRET"}}`
	os.WriteFile(filepath.Join(agent, "auth.json"), []byte(auth), 0o600)
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(`{"providers":{"lab":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","apiKey":"$LAB_KEY","models":[{"id":"lab-1"}]}}}`), 0o600)
	os.MkdirAll(filepath.Join(agent, "extensions"), 0o755)
	os.WriteFile(filepath.Join(agent, "extensions", "corp.ts"), []byte(corpExtension("http://127.0.0.1:9", "corp-literal")), 0o600)
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-test-not-real"}

	st := Read(context.Background(), Options{AgentDir: agent, Getenv: func(k string) string { return env[k] }, Pi: pi})
	if st.PiProblem != "" {
		t.Fatalf("pi: %s", st.PiProblem)
	}
	get := func(name string) Provider {
		t.Helper()
		p, ok := st.Find(name)
		if !ok {
			t.Fatalf("%s is not listed", name)
		}
		return p
	}
	if p := get("anthropic"); !p.Ready || p.By != ByEnv || p.Source != "ANTHROPIC_API_KEY" || !p.PiEngine || !p.BuiltinEngine {
		t.Errorf("anthropic: %+v", p)
	}
	if p := get("github-copilot"); !p.Ready || p.By != ByLogin || p.Expires == nil || !p.Expires.Equal(expires) || p.Expired ||
		p.BuiltinEngine || !p.PiEngine || !p.Login || !strings.Contains(p.EngineNote, "needs the pi engine") || len(p.Models) == 0 {
		t.Errorf("github-copilot: %+v", p)
	}
	if p := get("groq"); !p.Ready || p.By != ByAuth || !p.BuiltinEngine {
		t.Errorf("groq: %+v", p)
	}
	if p := get("corp-ai"); !p.Ready || p.By != ByPi || p.Known[0] != KnownExtension || !p.PiEngine || p.BuiltinEngine ||
		strings.Join(p.Models, ",") != "corp-1" {
		t.Errorf("corp-ai: %+v", p)
	}
	if p := get("lab"); p.Ready || p.PiEngine || !strings.Contains(p.Need, "LAB_KEY") {
		t.Errorf("lab: %+v", p)
	}
	if p := get("amazon-bedrock"); p.Ready || !p.Login {
		t.Errorf("amazon-bedrock: %+v", p)
	}
	if b, _ := json.Marshal(st); strings.Contains(string(b), "SECRET") || strings.Contains(string(b), "sk-test") || strings.Contains(string(b), "corp-literal") {
		t.Errorf("the state holds a secret: %s", b)
	}
	// Reading refreshed and rewrote nothing.
	if got, _ := os.ReadFile(filepath.Join(agent, "auth.json")); string(got) != auth {
		t.Errorf("auth.json changed:\n%s", got)
	}
}

// A new user's pi has no agent dir yet: pi's view is read all the same
// (the dir is made, as pi makes it), not lost to a folder that is missing.
func TestReadWithoutAnAgentDirYet(t *testing.T) {
	agent := filepath.Join(t.TempDir(), ".pi", "agent")
	st := Read(context.Background(), Options{AgentDir: agent, Pi: piFor(t, agent)})
	if st.PiProblem != "" {
		t.Fatalf("pi: %s", st.PiProblem)
	}
	if p, ok := st.Find("github-copilot"); !ok || !p.Login {
		t.Errorf("github-copilot: %+v", p)
	}
}

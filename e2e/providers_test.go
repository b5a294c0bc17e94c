package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/internal/realpi"
)

// The login tests run pi-tui's login in a real terminal with the real pi
// 1.x, whose own login asks there: pi-tui implements no flow.

// piHome is a home with pi's agent dir in it, and the environment that
// runs pi-tui there with the real pi; the test is skipped without one.
func piHome(t *testing.T) (home, agent string, env []string) {
	t.Helper()
	needTmux(t)
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	home, _ = filepath.EvalSymlinks(t.TempDir())
	agent = filepath.Join(home, ".pi", "agent")
	os.MkdirAll(filepath.Join(agent, "extensions"), 0o755)
	env = []string{"env", "HOME=" + home, "PI_TUI_DATA_DIR=" + filepath.Join(home, "data"), "PI_TUI_PI=" + argv[0], "TERM=xterm-256color", "PI_OFFLINE=1"}
	return home, agent, env
}

// fakeAuthServer plays a provider's authorisation server: a device code
// at /authorize, a token for the pasted code at /token.
func fakeAuthServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/authorize":
			json.NewEncoder(w).Encode(map[string]string{"verification": "http://" + r.Host + "/verify?device=dev-1", "device": "dev-1"})
		case "/token":
			var req struct{ Device, Code string }
			json.NewDecoder(r.Body).Decode(&req)
			if req.Device != "dev-1" || req.Code != "code-42" {
				http.Error(w, `{"error":"bad code"}`, http.StatusBadRequest)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"access": "access-from-server", "refresh": "refresh-from-server", "expires": int64(4102444800000)})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// corpExtension registers corp-ai with an account login against base, as
// docs/extensions.md shows: pi runs login(callbacks) and stores what it
// returns in auth.json.
func corpExtension(base string) string {
	return `export default function (pi: any) {
  pi.registerProvider("corp-ai", {
    name: "Corp AI", baseUrl: "` + base + `/v1", api: "openai-completions",
    models: [{ id: "corp-1", name: "Corp One", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
    oauth: {
      name: "Corp AI",
      async login(callbacks: any) {
        const res = await fetch("` + base + `/authorize", { method: "POST" });
        const { verification, device } = await res.json();
        callbacks.onAuth({ url: verification });
        const code = await callbacks.onPrompt({ message: "Paste the code" });
        const tok = await fetch("` + base + `/token", { method: "POST", body: JSON.stringify({ device, code }) });
        if (!tok.ok) throw new Error("the server refused the code");
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

func TestLoginToAnExtensionProviderRunsPisOwnLogin(t *testing.T) {
	t.Parallel()
	_, agent, env := piHome(t)
	srv := fakeAuthServer(t)
	os.WriteFile(filepath.Join(agent, "extensions", "corp.ts"), []byte(corpExtension(srv.URL)), 0o644)
	tm := startTerm(t, 80, 24, env, build(t), "login", "corp-ai", ";", "sleep", "60")

	// Asked first, saying what to type: pi's screen replaces this one.
	tm.waitFor("type /login corp-ai there", "Open pi? [y/N]")
	tm.text("y")
	tm.keys("Enter")
	tm.waitFor("0.0%/0") // pi's TUI is up
	tm.text("/login corp-ai")
	tm.keys("Enter")
	tm.waitFor("/verify?device=dev-1", "Paste the code")
	tm.text("code-42")
	tm.keys("Enter")
	tm.waitFor("Logged in to Corp AI")
	tm.text("/quit")
	tm.keys("Enter")
	tm.waitFor("corp-ai is ready: account login, token until 2100-01-01")

	data, _ := os.ReadFile(filepath.Join(agent, "auth.json"))
	var auth map[string]struct{ Type, Access string }
	if json.Unmarshal(data, &auth) != nil || auth["corp-ai"].Type != "oauth" || auth["corp-ai"].Access != "access-from-server" {
		t.Fatalf("auth.json after the login:\n%s", data)
	}
}

func TestLoginWithAnAPIKeyHandsItToPi(t *testing.T) {
	t.Parallel()
	_, agent, env := piHome(t)
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(`{"providers":{"lab":{"baseUrl":"http://127.0.0.1:9/v1","api":"openai-completions","models":[{"id":"m1"}]}}}`), 0o644)
	tm := startTerm(t, 80, 24, env, build(t), "login", "lab", "--api-key", ";", "sleep", "60")
	tm.waitFor("API key")
	tm.text("sk-never-shown-123")
	tm.keys("Enter")
	screen := tm.waitFor("lab is ready: key in auth.json; engines: pi, built-in.")
	if strings.Contains(screen, "sk-never-shown") {
		t.Fatalf("the key was echoed:\n%s", screen)
	}
	data, _ := os.ReadFile(filepath.Join(agent, "auth.json"))
	if !strings.Contains(string(data), `"sk-never-shown-123"`) {
		t.Fatalf("pi did not store the key:\n%s", data)
	}
	// pi-tui logout runs pi auth logout: the key is gone.
	tm2 := startTerm(t, 80, 24, env, build(t), "logout", "lab", ";", "sleep", "60")
	tm2.waitFor("lab is ready: no key needed; engines: built-in.") // pi no longer has a key for it
	if data, _ := os.ReadFile(filepath.Join(agent, "auth.json")); strings.Contains(string(data), "sk-never") {
		t.Fatalf("logout left the key:\n%s", data)
	}
}

package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/realpi"
	"github.com/pi-tui/pi-tui/store/storetest"
)

// newRealPiKitRig is a kit whose sessions run on the real pi 1.x
// (PI_TUI_PI), its default model a fake OpenAI-compatible server playing
// script, with realpi.ConfirmExtension installed in pi's agent dir. pi is the
// executable realpi.Command16 found. before, when given, runs once the
// files are in place and before pi-tui starts (home is the rig's HOME).
func newRealPiKitRig(t *testing.T, w, h int, pi string, script fakemodel.Script, before ...func(home string)) *kitRig {
	t.Helper()
	home, _ := filepath.EvalSymlinks(t.TempDir())
	root, agentDir := filepath.Join(home, "proj"), filepath.Join(home, ".pi", "agent")
	fake := fakemodel.New(t, script)
	for path, body := range map[string]string{
		filepath.Join(root, "AGENTS.md"):                    "Root rules.",
		filepath.Join(agentDir, "models.json"):              fake.ModelsJSON("openai-completions"),
		filepath.Join(agentDir, "settings.json"):            `{"defaultProvider":"fake","defaultModel":"m1","defaultThinkingLevel":"off"}`,
		filepath.Join(agentDir, "extensions", "confirm.ts"): realpi.ConfirmExtension,
	} {
		writeAt(t, path, body)
	}
	for _, f := range before {
		f(home)
	}
	env := func(k string) string {
		if k == "PI_TUI_PI" {
			return pi
		}
		return ""
	}
	clock := newFakeClock()
	storetest.Seed(t, filepath.Join(home, "data"))
	// pi reads its home and the model's key from its own environment.
	m, done, err := NewKit(context.Background(), KitOptions{DataDir: filepath.Join(home, "data"), AgentDir: agentDir, Home: home, Env: env,
		Runtime: runtimes.Options{Engine: "pi", PiEnv: []string{"HOME=" + home, "FAKE_API_KEY=test-key"}}, Now: clock.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	if _, _, err := m.opts.Host.Projects.Add(context.Background(), root, "proj", true); err != nil {
		t.Fatal(err)
	}
	return &kitRig{session: newSession(t, m, w, h), home: home, fake: fake, m: m, clock: clock}
}

// The real pi runs a user extension's tool that asks with ctx.ui.confirm:
// pi-tui's approval for the tool (an extension's, so gated) comes first;
// then the extension's question opens in the chat, its title's escape
// sequences shown, not sent; it takes no key until the keyboard has
// rested (a y typed as it appears goes to the chat input, an enter is
// ignored), and then y confirms (the tool says "deployed") and esc cancels
// (it says "cancelled"), which is what the model reads next.
func TestRealPiExtensionConfirmAnsweredInTheUI(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	for _, c := range []struct {
		name, key, want string
	}{
		{"yes", "y", "deployed"},
		{"esc", "esc", "cancelled"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRealPiKitRig(t, 120, 36, argv[0], func(n int, req fakemodel.Request) fakemodel.Reply {
				if req.LastToolResult == "" {
					return fakemodel.Reply{Calls: []fakemodel.Call{{ID: "d1", Name: "deploy", Args: map[string]string{}}}}
				}
				return fakemodel.Reply{Text: "the tool said " + req.LastToolResult}
			})
			r.chat()
			r.say("deploy it")
			r.waitFor("Allow deploy?")
			r.settle()
			r.keys("y")
			r.waitFor(`Deploy?\x1b]0;pwned\x07`, `to staging\x1b[8m hidden`, "y yes", "esc cancel")
			// The approval's y came before the question, and a y typed
			// now goes on to the chat input: neither answers it.
			r.waitScreen("keys ignored until you stop typing")
			r.keys("y")
			r.waitScreen("› y", `Deploy?\x1b]0;pwned\x07`, "keys ignored until you stop typing")
			r.keys("enter")
			r.waitScreen("1 key ignored", `Deploy?\x1b]0;pwned\x07`)
			r.settle()
			r.keys(c.key)
			r.waitFor("the tool said " + c.want)
			reqs := r.fake.Requests()
			if got := reqs[len(reqs)-1].LastToolResult; !strings.Contains(got, c.want) {
				t.Errorf("the model read %q after %s, want %q", got, c.key, c.want)
			}
			final := r.final()
			if strings.Contains(final, "Deploy?") {
				t.Errorf("the answered question stayed open:\n%s", final)
			}
			if found := rawEscapes(r.raw.Bytes()); len(found) > 0 {
				t.Errorf("the extension's escape sequences reached the terminal: %q", found)
			}
		})
	}
}

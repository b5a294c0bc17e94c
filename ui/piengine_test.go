package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pi-tui/pi-tui/core/runtimes"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
	"github.com/pi-tui/pi-tui/internal/realpi"
	"github.com/pi-tui/pi-tui/store/storetest"
)

// The fake pi, built once for the tests that run the pi engine.
var builtPi struct {
	once      sync.Once
	dir, path string
	err       error
}

func fakePiBinary(t *testing.T) string {
	t.Helper()
	builtPi.once.Do(func() {
		if builtPi.dir, builtPi.err = os.MkdirTemp("", "ui-fakepi-"); builtPi.err == nil {
			builtPi.path, builtPi.err = fakepi.Build(builtPi.dir)
		}
	})
	if builtPi.err != nil {
		t.Fatalf("build the fake pi: %v", builtPi.err)
	}
	return builtPi.path
}

func removeFakePi() {
	if builtPi.dir != "" {
		os.RemoveAll(builtPi.dir)
	}
}

// piKitRig is a kit whose sessions run on the pi engine (the fake pi,
// playing script and logging what it is asked to log), or on the
// built-in engine with that pi present when engine is "builtin".
type piKitRig struct {
	*session
	home, log string
	m         *Model
}

func newPiKitRig(t *testing.T, w, h int, engine string, script fakepi.Script) *piKitRig {
	t.Helper()
	home, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(home, "proj")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("Root rules."), 0o644)
	scriptFile, log := filepath.Join(home, "script.json"), filepath.Join(home, "pi.log")
	b, _ := json.Marshal(script)
	os.WriteFile(scriptFile, b, 0o644)
	pi := fakePiBinary(t)
	env := func(k string) string {
		if k == "PI_TUI_PI" {
			return pi
		}
		return ""
	}
	storetest.Seed(t, filepath.Join(home, "data"))
	m, done, err := NewKit(context.Background(), KitOptions{DataDir: filepath.Join(home, "data"), AgentDir: filepath.Join(home, ".pi", "agent"), Home: home, Env: env,
		Runtime: runtimes.Options{Engine: engine, PiEnv: []string{"FAKEPI_SCRIPT=" + scriptFile, "FAKEPI_LOG=" + log}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { done() })
	if _, _, err := m.opts.Host.Projects.Add(context.Background(), root, "proj", true); err != nil {
		t.Fatal(err)
	}
	return &piKitRig{session: newSession(t, m, w, h), home: home, log: log, m: m}
}

// chat opens a new session; on the pi engine it waits for the view's
// background launch.
func (r *piKitRig) chat(launches bool) {
	r.waitFor("proj")
	r.keys("enter", "o")
	r.waitFor("No sessions yet")
	r.keys("n")
	if launches {
		r.waitFor("Type a message", "runtime launched: new")
		return
	}
	r.waitFor("Type a message")
}

// logLines are the fake pi's log lines starting with prefix.
func (r *piKitRig) logLines(prefix string) []string {
	b, _ := os.ReadFile(r.log)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

var menusScript = fakepi.Script{
	Replies: []fakepi.Reply{{Text: "pi answered"}}, // each pi process from the first
	Models: []fakepi.Model{
		{Provider: "fake", ID: "fake-model", Name: "Fake Model", ContextWindow: 128000},
		{Provider: "claude-sub", ID: "opus-login", Name: "Opus (login)", ContextWindow: 200000, Reasoning: true},
	},
	Commands: []fakepi.Command{
		{Name: "deploy", Description: "Deploy the app", Source: "extension", Path: "/ext/deploy.ts", Scope: "user"},
		{Name: "fix-tests", Description: "Fix failing tests", Source: "prompt", Path: "/proj/.pi/prompts/fix-tests.md", Scope: "project"},
		{Name: "compact", Description: "an extension's compaction", Source: "extension"},
	},
}

// On the pi engine the "/" menu lists pi's extension commands and
// templates with their sources beside the chat's own commands (which win
// a clash, and say so); a template is sent to pi as typed. /model lists
// pi's catalogue, a model only pi can run included; choosing it makes
// the next launch pass it to pi, and its thinking levels are pi's.
func TestPiSessionMenusComeFromPi(t *testing.T) {
	t.Parallel()
	r := newPiKitRig(t, 160, 40, "pi", menusScript)
	r.chat(true)
	r.waitScreen("thinking off (model)") // pi says fake-model does not reason

	r.tm.Type("/")
	r.waitFor("/compact", "pi-tui's; hides pi extension /compact")
	r.tm.Type("dep")
	r.waitFor("/deploy", "Deploy the app · pi extension (user, deploy.ts)")
	r.keys("backspace", "backspace", "backspace")
	r.tm.Type("fix-t")
	r.waitFor("/fix-tests", "Fix failing tests · pi template (project, fix-tests.md)")
	r.keys("tab")
	r.tm.Type("unit")
	r.keys("enter")
	r.waitFor("pi answered")
	if got := r.logLines("prompt "); len(got) != 1 || got[0] != "prompt /fix-tests unit" {
		t.Errorf("pi was sent %q", got)
	}

	r.tm.Type("/model")
	r.keys("enter")
	// The menu's box wraps a long line.
	r.waitFor("Model for this session", "fake/fake-model · Fake Model · 128k", "› 1  fake/fake-model", "(current)", "claude-sub/opus-login · Opus", "200k · reasoning")
	r.keys("2")
	r.waitFor("model claude-sub/opus-login: from the next prompt on", "thinking medium")
	r.tm.Type("hello")
	r.keys("enter")
	// A new pi runs the model: its context window is the meter's.
	r.waitFor("runtime launched: model changed", "context 0.0% of 200k")
	starts := r.logLines("start ")
	if len(starts) != 2 || !strings.Contains(starts[1], "--provider claude-sub --model opus-login") {
		t.Errorf("launches: %q", starts)
	}
	r.final()
}

// On the built-in engine, with a pi present, the menus stay pi-tui's:
// its own skills and templates, never pi's commands.
func TestBuiltinSessionMenusStayPiTuis(t *testing.T) {
	t.Parallel()
	r := newPiKitRig(t, 160, 40, "builtin", menusScript)
	writeAt(t, filepath.Join(r.home, ".pi", "agent", "prompts", "review.md"), "---\ndescription: Review a file\n---\nReview $1.")
	r.chat(false) // no model for the built-in engine: its launch fails, quietly
	r.tm.Type("/")
	r.waitFor("/compact")
	r.tm.Type("re")
	r.waitFor("/review", "Review a file")
	view := r.final()
	if strings.Contains(view, "/deploy") || strings.Contains(view, "hides pi") {
		t.Errorf("a builtin session lists pi's commands:\n%s", view)
	}
	if got := r.logLines("start "); len(got) != 0 {
		t.Errorf("pi was started for a builtin session: %q", got)
	}
}

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

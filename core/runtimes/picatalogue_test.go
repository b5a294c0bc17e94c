package runtimes

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
	"github.com/pi-tui/pi-tui/internal/realpi"
)

// catalogueScript is a pi whose catalogue holds a model only it can run
// (a subscription login), an entry without an id, an extension command,
// a prompt template and a skill.
var catalogueScript = fakepi.Script{
	Replies: []fakepi.Reply{{Text: "ok"}, {Text: "ok"}},
	Models: []fakepi.Model{
		{Provider: "fake", ID: "m1", Name: "Model One", ContextWindow: 100000},
		{Provider: "claude-sub", ID: "opus-login", Name: "Opus (login)", ContextWindow: 200000, Reasoning: true},
		{Provider: "broken", ID: ""},
	},
	Commands: []fakepi.Command{
		{Name: "deploy", Description: "Deploy the app", Source: "extension", Path: "/x/ext/deploy.ts", Scope: "user"},
		{Name: "fix-tests", Description: "Fix failing tests", Source: "prompt", Path: "/x/prompts/fix-tests.md", Scope: "project"},
		{Name: "bad name", Source: "prompt"},
	},
}

// logRig is a pi rig whose fake pi writes what it is asked to a log.
func logRig(t *testing.T) (*piRig, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "pi.log")
	r := newPiRig(t, catalogueScript, func(o *Options) { o.PiEnv = append(o.PiEnv, "FAKEPI_LOG="+log) })
	return r, log
}

func count(t *testing.T, log, line string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if l == line {
			n++
		}
	}
	return n
}

// Catalogue.Models launches the session's pi when none runs, lists pi's catalogue
// (a model only pi can run included, a nameless entry left out), and asks
// pi once per launch: a relaunched runtime is asked again.
func TestPiModelsLaunchesAndKeepsTheAnswerPerLaunch(t *testing.T) {
	r, log := logRig(t)
	ctx := context.Background()
	models, err := r.m.Catalogue().Models(ctx, r.sid)
	if err != nil {
		t.Fatal(err)
	}
	want := []PiModel{{Provider: "fake", ID: "m1", Name: "Model One", ContextWindow: 100000, MaxTokens: 1},
		{Provider: "claude-sub", ID: "opus-login", Name: "Opus (login)", ContextWindow: 200000, MaxTokens: 1, Reasoning: true}}
	if !slices.Equal(models, want) {
		t.Fatalf("models = %+v", models)
	}
	if l := find[events.RuntimeLaunched](r.take()); len(l) != 1 || l[0].Engine != "pi" {
		t.Errorf("launches = %+v", l)
	}
	if _, err := r.m.Catalogue().Models(ctx, r.sid); err != nil {
		t.Fatal(err)
	}
	if n := count(t, log, "asked get_available_models"); n != 1 {
		t.Errorf("pi was asked %d times in one launch", n)
	}
	if !r.m.Retire(r.sid, "test") {
		t.Fatal("not retired")
	}
	if _, err := r.m.Catalogue().Models(ctx, r.sid); err != nil {
		t.Fatal(err)
	}
	if n := count(t, log, "asked get_available_models"); n != 2 {
		t.Errorf("a new launch was asked %d times in all, want 2", n)
	}
}

// Catalogue.Commands lists pi's extension commands and templates with their
// sources; a name that cannot be typed is left out.
func TestPiCommandsListsExtensionsAndTemplates(t *testing.T) {
	r, _ := logRig(t)
	cmds, err := r.m.Catalogue().Commands(context.Background(), r.sid)
	if err != nil {
		t.Fatal(err)
	}
	want := []PiCommand{{Name: "pi-tui-branch", Source: "extension"},
		{Name: "deploy", Description: "Deploy the app", Source: "extension", Path: "/x/ext/deploy.ts", Scope: "user"},
		{Name: "fix-tests", Description: "Fix failing tests", Source: "prompt", Path: "/x/prompts/fix-tests.md", Scope: "project"}}
	if !slices.Equal(cmds, want) {
		t.Errorf("commands = %+v", cmds)
	}
}

// Catalogue.Thinking gives the launched model's levels and the level in effect:
// a reasoning model launched at high has pi's levels and high; the
// default model does not reason.
func TestPiThinkingAsksTheLaunchedModel(t *testing.T) {
	r, _ := logRig(t)
	ctx := context.Background()
	th, err := r.m.Catalogue().Thinking(ctx, r.sid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(th.Levels, []string{"off"}) || th.Level != "off" || th.Model != "fake/m1" {
		t.Errorf("fake/m1: %+v", th)
	}
	r.m.Retire(r.sid, "test")
	if _, err := r.m.Prompt(ctx, r.sid, "claude-sub/opus-login:high", "hi"); err != nil {
		t.Fatal(err)
	}
	th, err = r.m.Catalogue().Thinking(ctx, r.sid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(th.Levels, []string{"off", "minimal", "low", "medium", "high"}) || th.Level != "high" || th.Model != "claude-sub/opus-login" {
		t.Errorf("claude-sub/opus-login:high: %+v", th)
	}
}

// A session on the built-in engine has no pi catalogue: one error says
// so; a cancelled wait for the launch returns the context's error.
func TestPiCatalogueErrors(t *testing.T) {
	b := newRig(t, readThenAnswer, nil) // no pi anywhere: auto is builtin
	_, err := b.m.Catalogue().Models(context.Background(), b.sid)
	if err == nil || !strings.Contains(err.Error(), "built-in engine") || strings.Contains(err.Error(), "\n") {
		t.Errorf("builtin: %v", err)
	}
	r, _ := logRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.m.Catalogue().Commands(ctx, r.sid); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The real pi: Catalogue.Models lists the model models.json gives its provider,
// and Catalogue.Commands the prompt template in the agent dir's prompts/.
func TestRealPiCatalogue(t *testing.T) {
	argv, skip := realpi.Command16()
	if argv == nil {
		t.Skip(skip)
	}
	t.Setenv("FAKE_API_KEY", "test-key")
	t.Setenv("HOME", t.TempDir())
	r := newRigOpts(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} }, func(o *Options) {
		env := o.Env
		o.Env = func(k string) string {
			if k == "PI_TUI_PI" {
				return argv[0]
			}
			return env(k)
		}
	})
	prompts := filepath.Join(r.h.Places.AgentDir, "prompts")
	os.MkdirAll(prompts, 0o755)
	os.WriteFile(filepath.Join(prompts, "review-diff.md"), []byte("---\ndescription: Review the diff\n---\nReview $1\n"), 0o644)
	ctx := context.Background()
	models, err := r.m.Catalogue().Models(ctx, r.sid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(models, func(m PiModel) bool { return m.Spec() == "fake/m1" }) {
		t.Errorf("models = %+v", models)
	}
	cmds, err := r.m.Catalogue().Commands(ctx, r.sid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cmds, func(c PiCommand) bool {
		return c.Name == "review-diff" && c.Source == "prompt" && c.Description == "Review the diff" && strings.HasSuffix(c.Path, "review-diff.md")
	}) {
		t.Errorf("commands = %+v", cmds)
	}
	th, err := r.m.Catalogue().Thinking(ctx, r.sid)
	if err != nil || len(th.Levels) == 0 {
		t.Errorf("thinking = %+v, %v", th, err)
	}
}

// BenchmarkPiModels: a /model look at pi's catalogue, kept from the
// launch, against asking the fake pi each time (Call's round trip).
func BenchmarkPiModels(b *testing.B) {
	dir := b.TempDir()
	script := filepath.Join(dir, "script.json")
	data, _ := json.Marshal(catalogueScript)
	os.WriteFile(script, data, 0o644)
	r := newRigOpts(b, readThenAnswer, func(o *Options) {
		env := o.Env
		o.Env = func(k string) string {
			if k == "PI_TUI_PI" {
				return fakePiPath
			}
			return env(k)
		}
		o.PiEnv = []string{"FAKEPI_SCRIPT=" + script}
	})
	ctx := context.Background()
	if _, err := r.m.Catalogue().Models(ctx, r.sid); err != nil {
		b.Fatal(err)
	}
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.m.Catalogue().Models(ctx, r.sid); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("asked", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.m.Call(ctx, r.sid, "get_available_models", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

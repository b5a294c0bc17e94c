package runtimes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-tui/pi-tui/core/events"
	"github.com/pi-tui/pi-tui/core/provider"
	"github.com/pi-tui/pi-tui/internal/fakemodel"
	"github.com/pi-tui/pi-tui/internal/fakepi"
)

// launchedModel is the model of the runtime the last prompt ran on.
func (r *rig) launchedModel() string {
	r.t.Helper()
	model := ""
	for _, e := range r.take() {
		switch e := e.(type) {
		case events.RuntimeLaunched:
			model = e.Model
		case events.RuntimeReused:
			model = e.Model
		}
	}
	return model
}

// Manager.Model names the model a prompt then runs, and where it comes
// from: with only models.json its first model, with settings.json's
// default that one; with nothing usable it fails with the sentence the
// prompt fails with, which says how to set a model up.
func TestModelIsWhatAPromptRuns(t *testing.T) {
	r := newRig(t, func(int, fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "ok"} }, nil)
	ctx := context.Background()
	agent := r.h.Places.AgentDir
	if err := os.Remove(filepath.Join(agent, "settings.json")); err != nil {
		t.Fatal(err)
	}
	c, err := r.m.Model(ctx, "")
	if err != nil || c.Model.String() != "fake/m1" || c.Source != provider.SourceFirstUsable || c.Origin() != "first in models.json" || c.ByPi {
		t.Fatalf("only models.json: %+v, %v", c, err)
	}
	r.prompt("one")
	if got := r.launchedModel(); got != c.Model.String() {
		t.Errorf("the prompt ran %q; Model said %q", got, c.Model)
	}

	two := strings.Replace(r.fake.ModelsJSON("openai-completions"), `{"id":"m1"`, `{"id":"m0"},{"id":"m1"`, 1)
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(two), 0o644)
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProvider":"fake","defaultModel":"m0"}`), 0o644)
	c, err = r.m.Model(ctx, "")
	if err != nil || c.Model.String() != "fake/m0" || c.Source != provider.SourceDefault || c.Origin() != "settings.json" {
		t.Fatalf("settings.json's default: %+v, %v", c, err)
	}
	r.prompt("two")
	if got := r.launchedModel(); got != c.Model.String() {
		t.Errorf("the prompt ran %q; Model said %q", got, c.Model)
	}

	os.Remove(filepath.Join(agent, "models.json"))
	os.Remove(filepath.Join(agent, "settings.json"))
	_, err = r.m.Model(ctx, "")
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.ErrNoModel || !strings.Contains(err.Error(), "models.json") {
		t.Fatalf("nothing usable: %v", err)
	}
	if _, perr := r.m.Prompt(ctx, r.sid, "", "three"); perr == nil || perr.Error() != err.Error() {
		t.Errorf("the prompt failed with %v; Model said %v", perr, err)
	}
}

// On the pi engine a model pi-tui has no key for, or cannot resolve,
// still runs (pi has its own logins): Model says pi runs it, and the
// prompt runs that model on pi.
func TestModelOnThePiEngine(t *testing.T) {
	r := newPiRig(t, fakepi.Script{Replies: []fakepi.Reply{{Text: "from pi"}, {Text: "again"}}}, nil)
	ctx := context.Background()
	agent := r.h.Places.AgentDir
	os.Remove(filepath.Join(agent, "models.json"))
	os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"defaultProvider":"anthropic","defaultModel":"claude-haiku-4-5"}`), 0o644)
	c, err := r.m.Model(ctx, "")
	if err != nil || !c.ByPi || c.Model.String() != "anthropic/claude-haiku-4-5" || c.Source != provider.SourceDefault || c.Usable {
		t.Fatalf("no key for the default: %+v, %v", c, err)
	}
	r.prompt("one")
	if got := r.launchedModel(); got != c.Model.String() {
		t.Errorf("the prompt ran %q; Model said %q", got, c.Model)
	}
	// Nothing pi-tui can use and no default: pi picks its own.
	os.Remove(filepath.Join(agent, "settings.json"))
	if c, err = r.m.Model(ctx, ""); err != nil || !c.ByPi || c.Model.ID != "" {
		t.Fatalf("nothing usable: %+v, %v", c, err)
	}
}
